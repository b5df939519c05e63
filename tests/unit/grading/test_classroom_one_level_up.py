"""A Google Classroom folder passed one level up is refused, not graded as one student (issue 33, deliverable 4).

``SUBMISSIONS/01_devices/`` is an assignment's folder holding every student's copy; graded as it stood, it became
one student called ``01_devices`` with one file graded and the others ignored. ``students_in``
(graders/grading/autograde.py) refuses it and points to ``collect``, as it does for a flat LMS download.

The file names follow ../shared/reference/lms-formats.md, "Google Classroom": copies Classroom makes for each
student are named ``<Student Name> - <title>`` (*unverified* exact form there); issue 33 reports them the other way
round, ``<title> - <Student Name>.ipynb``. Both orders are refused: what gives the folder away is its name, which is
a released notebook's, never a student's.
"""

from __future__ import annotations

import pytest

from graders.__main__ import main
from graders.grading.autograde import NothingToGrade, students_in
from graders.paths import SAMPLES

NB = "01_devices"
TITLE_FIRST = [f"{NB} - Jane Doe.ipynb", f"{NB} - John Smith.ipynb"]  # issue 33's example
NAME_FIRST = [f"Jane Doe - {NB}.ipynb", f"John Smith - {NB}.ipynb"]  # lms-formats.md's rule


def _assignment_folders(tmp_path, files: list[str], notebooks=(NB,)):
    subs = tmp_path / "SUBMISSIONS"
    for notebook in notebooks:
        for name, sample in zip(files, ("correct", "mistakes"), strict=True):
            folder = subs / notebook
            folder.mkdir(parents=True, exist_ok=True)
            name = name.replace(NB, notebook)
            (folder / name).write_bytes((SAMPLES / sample / f"{notebook}.ipynb").read_bytes())
    return subs


@pytest.mark.parametrize("files", [TITLE_FIRST, NAME_FIRST], ids=["title-first", "name-first"])
def test_a_classroom_assignment_folder_one_level_up_is_refused_and_points_to_collect(tmp_path, files, capsys):
    subs = _assignment_folders(tmp_path, files)
    with pytest.raises(NothingToGrade, match="graders collect"):
        students_in(subs)
    assert main(["autograde", str(subs), "--out", str(tmp_path / "out"), "--notebooks", NB]) == 2
    said = capsys.readouterr().out
    assert "collect" in said
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_two_assignment_folders_side_by_side_are_not_two_students(tmp_path):
    subs = _assignment_folders(tmp_path, TITLE_FIRST, notebooks=(NB, "02_transfers"))
    with pytest.raises(NothingToGrade) as refused:
        students_in(subs)
    assert "one level above the student folders" in str(refused.value)
    assert f"{NB} - Jane Doe.ipynb" in str(refused.value) or "02_transfers - Jane Doe.ipynb" in str(refused.value)


def test_student_folders_are_still_graded(tmp_path):
    assert [f.name for f in students_in(SAMPLES)] == ["correct", "mistakes", "untouched"]
