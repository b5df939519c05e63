"""Two files of one student for one released notebook: one is graded and the row names the other, never a silent
drop (issue 33, deliverable 4: "nothing handed in is dropped"; graders/intake/student_files.py).

Two holes closed: a renamed copy (``Untitled3.ipynb``) matched by its cells to a notebook that a file already
claims by name was dropped without a word; and when the file chosen (the newest) could not be read, the failed
row said why but not that another file had been handed in for that notebook.
"""

from __future__ import annotations

import os

from graders.intake import student_files as intake
from graders.paths import SAMPLES

NB = "01_devices"


def test_a_renamed_copy_beside_the_named_file_is_named_in_the_row(tmp_path):
    folder = tmp_path / "ann"
    folder.mkdir()
    (folder / f"{NB}.ipynb").write_bytes((SAMPLES / "correct" / f"{NB}.ipynb").read_bytes())
    (folder / "Untitled3.ipynb").write_bytes((SAMPLES / "mistakes" / f"{NB}.ipynb").read_bytes())
    item = intake.intake_student(folder, [NB, "02_transfers"])[NB]
    assert item.problem is None and item.path == folder / f"{NB}.ipynb"
    assert any("Untitled3.ipynb" in note for note in item.notes), item.notes


def test_when_the_newest_file_cannot_be_read_the_failed_row_names_the_other(tmp_path):
    folder = tmp_path / "ann"
    folder.mkdir()
    good, broken = folder / f"{NB}.ipynb", folder / f"{NB} (1).ipynb"
    good.write_bytes((SAMPLES / "correct" / f"{NB}.ipynb").read_bytes())
    broken.write_text('{"cells": [')  # the later download, cut short
    os.utime(good, (1e9, 1e9))
    item = intake.intake_student(folder, [NB])[NB]
    assert item.problem.startswith("not valid JSON")
    assert f"{NB}.ipynb" in item.problem.split("not valid JSON", 1)[1], item.problem  # the other file, named


def test_the_hand_in_is_fingerprinted_by_its_bytes(tmp_path):
    folder = tmp_path / "ann"
    folder.mkdir()
    (folder / f"{NB}.ipynb").write_bytes((SAMPLES / "correct" / f"{NB}.ipynb").read_bytes())
    first = intake.intake_student(folder, [NB])[NB].digest
    assert first and first == intake.intake_student(folder, [NB])[NB].digest
    (folder / f"{NB}.ipynb").write_bytes((SAMPLES / "mistakes" / f"{NB}.ipynb").read_bytes())
    assert intake.intake_student(folder, [NB])[NB].digest != first
