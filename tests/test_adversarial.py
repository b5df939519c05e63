"""Adversarial submissions, graded by real nbgrader in one run: each ends as its expected row,
the bystanders' rows are those of a clean run, and a gamed test never yields a point. A tamper
finding is a review (graders/grading/review.py): the score computed with the guard's repairs stands, and
nbgrader's gradebook flags the notebook; a forged guard log withholds the score.

The cases are in tests/adversarial/ (fixture builders). Small limits keep the run short; they reach
the grading subprocesses through the environment and this process through ``limits.reload()``.
"""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path
from unittest import mock

import pytest

from graders import limits
from graders.paths import REPO

sys.path.insert(0, str(Path(__file__).parent))
import adversarial  # noqa: E402

pytestmark = pytest.mark.slow
# GRADER_WATCH_FILES=0: other work may edit gpucourse/ while this runs; the audit hook is what is tested.
# GRADER_RUN_FLAGGED=1: a flagged notebook runs, so that its repaired score can be checked.
SMALL_LIMITS = {"GRADER_CELL_TIMEOUT_S": "30", "GRADER_NOTEBOOK_WALL_S": "180", "GRADER_RUN_FLAGGED": "1",
                "GRADER_WATCH_FILES": "0"}
CHECKS = REPO / "gpucourse" / "checks.py"


def _read(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from graders.grading.autograde import autograde

    try:
        with mock.patch.dict(os.environ, SMALL_LIMITS):
            limits.reload()
            base = tmp_path_factory.mktemp("adversarial")
            cases = adversarial.build(base / "submissions")
            solutions = adversarial.trimmed_solutions(base / "solutions")
            rows = autograde(base / "submissions", base / "graded", names=[adversarial.NAME], solutions=solutions,
                             jobs=2, progress=False)
    finally:
        limits.reload()
    return {"dir": base / "graded", "cases": {c.student: c for c in cases},
            "rows": {r.student_id: r for r in rows}}


def _case_names() -> list[str]:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        return [c.student for c in adversarial.build(Path(tmp))]


@pytest.mark.parametrize("student", _case_names())
def test_case_ends_as_expected(graded, student):
    case, row = graded["cases"][student], graded["rows"].get(student)
    assert row is not None, f"{student}: no row"
    assert (row.status, row.score) == (case.status, case.score), f"{student} ({case.what}): {row.message}"
    for fragment in case.says:
        assert fragment in row.message, f"{student}: {fragment!r} not in {row.message!r}"
    if case.status == "graded" or case.status == "review" and case.score is not None:
        for gid, (score, mx) in row.cells.items():
            assert score == (0 if gid in case.lost else mx), f"{student}: {gid} scored {score}/{mx}"
    else:
        assert row.message, "a failed or withheld row says why"


def test_bystanders_match_a_clean_run(graded):
    table = {r["student_id"]: r for r in _read(graded["dir"] / "grades.csv")}
    for student in ("aaa-clean", "mmm-clean-mistakes", "zzz-clean"):
        assert table[student] == adversarial.clean_row(graded["cases"][student])


def test_gamed_tests_never_give_points(graded):
    detail = _read(graded["dir"] / "grades_detail.csv")
    for student, case in graded["cases"].items():
        if student.startswith("game-"):
            cells = {r["grade_id"]: r["score"] for r in detail if r["student_id"] == student}
            assert set(cells) == set(adversarial.POINTS), student
            for gid in case.lost:
                assert cells[gid] in ("0", ""), f"{student}: the gamed {gid} scored {cells[gid]}"


def test_reviews_are_flagged_in_nbgraders_gradebook(graded):
    import sqlite3
    with sqlite3.connect(graded["dir"] / "course" / "gradebook.db") as con:
        flagged = {s for s, f in con.execute("select s.student_id, n.flagged from submitted_notebook n join "
                                             "submitted_assignment s on n.assignment_id = s.id") if f}
    assert flagged == {s for s, c in graded["cases"].items() if c.status == "review"}


def test_every_row_is_true(graded):
    table = _read(graded["dir"] / "grades.csv")
    detail = _read(graded["dir"] / "grades_detail.csv")
    assert len(table) == len(graded["cases"])
    for row in table:
        cells = [float(d["score"] or 0) for d in detail if d["student_id"] == row["student_id"]]
        assert row["status"] in ("graded", "review", "failed")
        if row["status"] == "failed":
            assert float(row["score"]) == 0 and row["message"]
        elif row["score"] == "":  # withheld for review: no cell score either, and the message says why
            assert "withheld" in row["message"] and not any(d["score"] for d in detail
                                                            if d["student_id"] == row["student_id"])
        else:
            assert float(row["score"]) == sum(cells) and float(row["max_score"]) == adversarial.MAX


def test_nothing_outside_the_runs_changed(graded):
    assert "changed by a student" not in CHECKS.read_text()
    assert not Path("/tmp/evil.pth").exists()
    assert not (graded["dir"].parent / "grades.csv").exists()


def test_output_flood_is_cut_in_the_kernel(graded):
    nb_path = graded["dir"] / "course" / "autograded" / "million-lines" / adversarial.NAME / f"{adversarial.NAME}.ipynb"
    assert nb_path.stat().st_size < 2_000_000


def test_feedback_and_summary(graded, tmp_path):
    from graders.export.feedback import class_summary, student_feedback
    pages, _refused = student_feedback(graded["dir"], tmp_path / "feedback", [adversarial.NAME])
    students = {p.parent.parent.name for p in pages}
    assert {"aaa-clean", "mmm-clean-mistakes", "colab-saved"} <= students
    text = (tmp_path / "feedback" / "mmm-clean-mistakes" / adversarial.NAME / f"{adversarial.NAME}.html").read_text()
    assert "[FAIL]" in text and "BEGIN HIDDEN TESTS" not in text and "_expected" not in text
    table = class_summary(graded["dir"], tmp_path)
    assert {r["exercise"] for r in table} == set(adversarial.POINTS)
    assert (tmp_path / "summary.png").stat().st_size > 1000 and "pass rate" in (tmp_path / "summary.md").read_text()
