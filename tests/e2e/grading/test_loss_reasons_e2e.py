"""Why a point was lost, on the samples graded by real nbgrader (issue 33, deliverable 3): in grades_detail.csv,
every test cell that lost points has a reason read from what its graded cell shows (a [FAIL] hint, a [TODO], a
hidden test's requirement), and no reason quotes a hidden test's code. The reasons of every other case (a
tamper check, a review, the feedback page): tests/unit/grading/test_loss_reasons.py and
tests/unit/export/test_loss_reasons_feedback.py."""

from __future__ import annotations

from graders import nbtools
from graders.csvfile import read_rows
from graders.export.feedback import hidden_lines
from graders.paths import SOLUTIONS


def test_every_point_the_samples_lost_has_its_reason_and_no_hidden_code(samples_graded):
    out, _ = samples_graded
    detail = read_rows(out / "grades_detail.csv")
    lost = [d for d in detail if not d["score"] or float(d["score"]) < float(d["max_score"])]
    mistakes = [d for d in lost if d["student_id"] == "mistakes"]
    assert mistakes, "the mistakes sample loses points: there is something to explain"
    secret = {name: hidden_lines(nbtools.read(SOLUTIONS / f"{name}.ipynb")) for name in {d["notebook"] for d in detail}}
    assert all(secret.values()), "the notebooks have hidden tests whose code could leak"
    for d in lost:
        where = f"{d['student_id']}/{d['notebook']}/{d['grade_id']}"
        # read from the graded cell: the fallbacks say nothing a student or an instructor could act on
        assert d["reason"] and "no reason was recorded" not in d["reason"], where
        assert "shows no error" not in d["reason"] and "missing from the graded notebook" not in d["reason"], where
        assert not [line for line in secret[d["notebook"]] if line in d["reason"]], where
    assert not [d for d in detail if d["reason"] and d not in lost], "a cell with all its points has no reason"
