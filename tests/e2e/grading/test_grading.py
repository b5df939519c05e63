"""Real nbgrader, end to end, on a representative set: every reference at full marks, every untouched
copy at 0, one packed submission of mistakes per notebook losing exactly their exercises' points, and
broken submissions failing alone. Every mistake and alternative is judged in one kernel per notebook
by tests/judge/test_judge.py; this file checks that nbgrader grades as that tier says."""

from __future__ import annotations

import csv

import pytest

from graders.grading.autograde import autograde
from graders.paths import notebook_names
from graders.qa.selftest import compare, make_submissions

NAMES = notebook_names()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One grading run over the representative cases of every notebook (2 parallel workers)."""
    out = tmp_path_factory.mktemp("selftest")
    expected = make_submissions(out / "submissions", NAMES, rounds=1)
    broken = out / "submissions" / "zz-broken"
    broken.mkdir()
    (broken / "01_devices.ipynb").write_text("{ this is not json")
    (broken / "02_transfers.ipynb").write_text("")
    rows = autograde(out / "submissions", out / "graded", names=NAMES, jobs=2, progress=False)
    return out, expected, rows


@pytest.mark.parametrize("name", NAMES)
def test_scores_are_as_expected(graded, name):
    _, expected, rows = graded
    problems = compare(rows, [e for e in expected if e.notebook == name])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_the_packed_submission_carries_several_mistakes(graded, name):
    """The one packed submission is a real test of packing: several mistakes, each losing only its own tests."""
    _, expected, _ = graded
    packed = [e for e in expected if e.notebook == name and e.mistakes]
    assert len(packed) == 1 and len(packed[0].mistakes) >= 2, [(e.student, e.mistakes) for e in packed]


def test_every_pair_has_exactly_one_row(graded):
    out, expected, rows = graded
    with open(out / "graded" / "grades.csv", newline="") as f:
        table = list(csv.DictReader(f))
    keys = [(r["student_id"], r["notebook"]) for r in table]
    students = {r["student_id"] for r in table}
    assert len(keys) == len(set(keys)) == len(students) * len(NAMES)
    assert all(r["status"] in ("graded", "failed") for r in table)
    assert all(r["message"] for r in table if r["status"] == "failed"), "a failed row always says why"


def test_broken_files_fail_alone_with_a_reason(graded):
    _, _, rows = graded
    by_key = {(r.student_id, r.notebook): r for r in rows}
    assert by_key[("zz-broken", "01_devices")].status == "failed"
    assert "not valid JSON" in by_key[("zz-broken", "01_devices")].message
    assert "empty" in by_key[("zz-broken", "02_transfers")].message
    assert "missing" in by_key[("zz-broken", "03_async_timing")].message
    assert by_key[("correct", "01_devices")].status == "graded"


def test_feedback_is_written_for_every_notebook(graded, tmp_path):
    """No page is refused for showing hidden tests when it shows none (02, 03 and 04 once were)."""
    from graders.export.feedback import student_feedback
    out, _, _ = graded
    pages, refused = student_feedback(out / "graded", tmp_path, NAMES)
    assert refused == []
    assert {p.stem for p in pages if p.parent.parent.name == "solution"} == set(NAMES)
    assert all(p.parent.name == p.stem for p in pages)  # nbgrader's layout: <student>/<notebook>/<notebook>.html
