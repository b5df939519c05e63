"""The grader and the students' hand-in check see the same visible checks: on the samples the grader graded
(conftest's ``samples_graded``), every check cell the hand-in check passes keeps its points or loses them to a
hidden test only, and every one it fails or calls to do loses them with the very line the check printed; a notebook
the check calls ready gets full marks from the visible side (the correct sample: full marks)."""

from __future__ import annotations

import csv
import json
import re

import pytest

from gpucourse import handin
from graders.paths import SAMPLES
from tests.e2e.grading.conftest import SAMPLES_GRADED

GOT = re.compile(r" \(got .*\)$")  # a value drawn afresh on each run


def same(line: str) -> str:
    return GOT.sub("", line.strip())


@pytest.mark.parametrize("student", ["correct", "untouched", "mistakes"])
@pytest.mark.parametrize("name", SAMPLES_GRADED)
def test_the_grader_and_the_hand_in_check_agree_on_the_samples(samples_graded, student, name):
    out, _ = samples_graded
    with open(out / "grades_detail.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["student_id"] == student and r["notebook"] == name]
    assert rows
    nb = json.loads((SAMPLES / student / f"{name}.ipynb").read_text(encoding="utf-8"))
    report = handin.check(nb, f"{name}.ipynb", echo=lambda line: None)
    said = {same(line) for line in report.exercises}
    for row in rows:
        exercise = row["grade_id"].removeprefix("test_")
        visible = row["reason"].startswith(("[FAIL] ", "[TODO] ")) and not row["reason"].startswith(
            "[FAIL] autograder's test")
        if visible:
            assert same(row["reason"]) in said, (row, sorted(said))
        else:
            assert f"[PASS] {exercise}" in said, (row, sorted(said))
    if report.ready:
        assert all(float(r["score"]) == float(r["max_score"]) for r in rows if not r["reason"]) and student == "correct"
