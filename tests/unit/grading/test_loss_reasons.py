"""Why a point was lost is always visible (issue 33, deliverable 3): every test cell that lost points has its
reason, read from the graded notebook (graders/grading/reasons.py), or said by the review (points a tamper check
took, a score withheld, a decision), in grades_detail.csv and in `review`'s listing; never a hidden test's code.
The student's feedback page: tests/unit/export/test_loss_reasons_feedback.py. On the graded samples:
tests/e2e/grading/test_loss_reasons_e2e.py."""

from __future__ import annotations

import csv
from types import SimpleNamespace

from graders.grading import reasons, review
from graders.grading.graded_folder import read_csv, write_csv
from graders.grading.job import Attempt
from graders.grading.row import Row
from graders.grading.verdict import verdict
from tests.helpers.loss_reasons import BARE, FINDING, HIDDEN_CODE, HINT, MESSAGE, REQUIREMENT, graded_notebook, scored


def test_every_failed_test_cell_has_its_reason_and_none_quotes_hidden_code():
    nb = graded_notebook()
    found = reasons.notebook_reasons(nb, scored(nb))
    assert set(found) == {"t_visible", "t_requirement", "t_message", "t_bare", "t_crash", "t_slow"}, "t_pass lost none"
    assert HINT in found["t_visible"] and found["t_visible"].startswith("[FAIL] t_visible")
    assert REQUIREMENT in found["t_requirement"] and "hidden tests" in found["t_requirement"]
    assert MESSAGE in found["t_message"] and "hidden tests" in found["t_message"]
    assert "ZeroDivisionError: division by zero" in found["t_crash"]
    assert "time limit" in found["t_slow"]
    assert found["t_bare"].startswith("AssertionError") and "without a message" in found["t_bare"]
    for reason in found.values():
        assert HIDDEN_CODE not in reason and BARE not in reason and "_acc" not in reason and "\x1b[" not in reason


def test_a_cell_the_graded_notebook_lacks_or_that_shows_no_error_still_has_a_reason():
    nb = graded_notebook()
    cells = {"t_pass": (1.0, 2.0), "t_gone": (0.0, 3.0)}
    found = reasons.notebook_reasons(nb, cells)
    assert "missing" in found["t_gone"] and "1 of 2" in found["t_pass"]


def _job(evidence: list[str]) -> SimpleNamespace:
    return SimpleNamespace(student="alice", name="01_devices", max_score=14.0, notes=[], evidence=list(evidence),
                           item=SimpleNamespace(nb=graded_notebook()), log_findings=lambda: None)


def _attempt(tmp_path, untrusted=()) -> Attempt:
    nb = graded_notebook()
    attempt = Attempt(1, tmp_path, cells=scored(nb), untrusted=list(untrusted))
    attempt.reasons = reasons.notebook_reasons(nb, attempt.cells)
    attempt.taken = {gid: FINDING for gid in untrusted}
    return attempt


def _detail(tmp_path) -> dict:
    with open(tmp_path / "grades_detail.csv", newline="") as f:
        return {(d["student_id"], d["grade_id"]): d for d in csv.DictReader(f)}


def test_grades_detail_names_every_lost_cell_and_why(tmp_path):
    attempt = _attempt(tmp_path)
    verdict(_job([]), attempt)
    write_csv([attempt.row], tmp_path)
    detail = _detail(tmp_path)
    lost = {gid for (_, gid), d in detail.items() if float(d["score"]) < float(d["max_score"])}
    assert lost == set(attempt.reasons)
    for (_, gid), d in detail.items():
        assert bool(d["reason"]) == (gid in lost)
        assert d["reason"] == attempt.reasons.get(gid, "")
    back = read_csv(tmp_path)[0]
    assert back.lost() == attempt.row.lost(), "read back as written (autograde and review rewrite the file)"


def test_points_a_tamper_check_took_name_the_guards_finding(tmp_path):
    attempt = _attempt(tmp_path, untrusted=["t_pass"])
    verdict(_job([f"t_pass scores 0 until reviewed (nbgrader gave 2): {FINDING}"]), attempt)
    row = attempt.row
    assert row.status == "review" and row.cells["t_pass"] == (0.0, 2.0)
    assert FINDING in row.lost()["t_pass"] and "nbgrader gave 2" in row.lost()["t_pass"]
    write_csv([row], tmp_path)
    assert FINDING in _detail(tmp_path)[("alice", "t_pass")]["reason"]
    # the reasons travel with the finding: a later run or `review` rebuilds the row from reviews.json
    store = review.Store(tmp_path)
    store.record([row])
    store.save()
    again = review.Store(tmp_path).apply(read_csv(tmp_path))[0]
    assert again.lost() == row.lost()
    accepted = review.apply(row, review.Store(tmp_path).findings["alice/01_devices"],
                            [{"student": "alice", "notebook": "01_devices", "digest": row.review.digest,
                              "decision": "accept", "score": None, "at": "2026-12-04 18:00 UTC", "note": ""}])
    assert "t_pass" not in accepted.lost() and accepted.lost() == attempt.reasons


CELLS = {"test_a": (2.0, 2.0), "test_b": (3.0, 3.0), "test_c": (0.0, 5.0)}


def _review(**kw) -> review.Review:
    return review.Review(digest="d1", withheld=kw.pop("withheld", False), evidence=["the log was cut"],
                         cells=dict(CELLS), reasons={"test_c": f"[FAIL] test_c: {HINT}"}, **kw)


def _decision(decision: str, score=None) -> dict:
    return {"student": "alice", "notebook": "01_devices", "digest": "d1", "decision": decision, "score": score,
            "at": "2026-12-04 18:00 UTC", "note": "copied"}


def _row() -> Row:
    return Row("alice", "01_devices", 5.0, 10.0, "graded", cells=dict(CELLS))


def test_a_withheld_score_names_what_withheld_it_for_every_cell():
    row = review.apply(_row(), _review(withheld=True, broken=["the grader's integrity log was cut or reordered"]), [])
    assert row.score is None and set(row.lost()) == set(CELLS)
    assert all("withheld" in r and "integrity log was cut" in r for r in row.lost().values())
    assert HINT in row.lost()["test_c"], "and what nbgrader found"
    not_run = review.apply(_row(), _review(withheld=True, ran=False), [])
    assert all("not run" in r for r in not_run.lost().values()) and set(not_run.lost()) == set(CELLS)


def test_a_decision_says_why_each_cell_lost_points():
    rejected = review.apply(_row(), _review(), [_decision("reject")])
    assert set(rejected.lost()) == set(CELLS) and all("rejected" in r and "copied" in r
                                                       for r in rejected.lost().values())
    given = review.apply(_row(), _review(), [_decision("accept", score=4)])
    assert given.lost() and all("instructor gave 4" in r for r in given.lost().values())
    accepted = review.apply(_row(), _review(), [_decision("accept")])
    assert accepted.lost() == {"test_c": f"[FAIL] test_c: {HINT}"}


def test_an_older_detail_file_without_reasons_still_reads_and_says_points_are_missing(tmp_path):
    (tmp_path / "grades.csv").write_text("student_id,notebook,score,max_score,status,message\n"
                                         "alice,01_devices,5,10,graded,\n")
    (tmp_path / "grades_detail.csv").write_text("student_id,notebook,grade_id,score,max_score\n"
                                                "alice,01_devices,test_a,5,5\nalice,01_devices,test_b,0,5\n")
    row = read_csv(tmp_path)[0]
    assert list(row.lost()) == ["test_b"] and "no reason was recorded" in row.lost()["test_b"]


def test_review_lists_each_lost_cell_with_its_reason(tmp_path, capsys):
    from graders.__main__ import main

    rows = [review.apply(_row(), _review(untrusted=["test_b"], taken={"test_b": FINDING}), []),
            Row("bob", "01_devices", 8.0, 10.0, "graded", cells={"test_a": (0.0, 2.0), "test_b": (8.0, 8.0)},
                reasons={"test_a": f"[FAIL] test_a: {HINT}"})]
    rows = review.settle(tmp_path, rows, record=True)
    write_csv(rows, tmp_path)
    assert main(["review", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert "lost test_b (0/3): nbgrader gave 3, but a tamper check took the points" in listing
    assert FINDING in listing and f"lost test_c (0/5): [FAIL] test_c: {HINT}" in listing
    assert "bob" not in listing, "a graded row is listed with --all only"
    assert "1 graded notebook(s) lost points: `--all` lists each test cell and why" in listing
    assert main(["review", str(tmp_path), "--all"]) == 0
    listing = capsys.readouterr().out
    assert f"bob 01_devices: score 8/10\n    lost test_a (0/2): [FAIL] test_a: {HINT}" in listing


def test_a_manual_grade_that_gives_less_says_so(tmp_path):
    from nbgrader.api import Gradebook

    from graders.grading import gradebook_rows
    from graders.paths import COURSE_ID
    from tests.helpers.gradebooks import make_course

    make_course(tmp_path, {"alice": (3, None)}, manifest=None)
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        gb.find_grade("01_devices_test", "01_devices", "01_devices", "alice").manual_score = 1
        gb.db.commit()
    row = Row("alice", "01_devices", 3.0, 5.0, "graded", cells={"01_devices_test": (3.0, 5.0)},
              reasons={"01_devices_test": f"[FAIL] 01_devices_test: {HINT}"})
    once = gradebook_rows.refresh(tmp_path, [row])[0]
    said = once.lost()["01_devices_test"]
    assert said.startswith(gradebook_rows.NOTE) and "1 of 5" in said and HINT in said
    assert gradebook_rows.refresh(tmp_path, [once])[0].lost() == once.lost(), "a rerun reads it back and says it once"
