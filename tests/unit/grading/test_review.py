"""Tamper findings are reviews, not zeros (graders/grading/review.py, graders/commands/review.py).

The row transformation and the decision store. One real-nbgrader run of a flagged submission:
tests/e2e/grading/test_review_e2e.py.
"""

from __future__ import annotations

import csv
import json

import pytest

from graders.grading import review
from graders.grading.autograde import read_csv, write_csv
from graders.grading.row import Row

CELLS = {"test_a": (2.0, 2.0), "test_b": (3.0, 3.0), "test_c": (0.0, 5.0)}  # nbgrader: 5/10


def _review(digest="d1", **kw) -> review.Review:
    return review.Review(digest=digest, withheld=kw.pop("withheld", False),
                         evidence=["cell 3 line 1: replaces torch.allclose"], notes=kw.pop("notes", []),
                         cells=dict(CELLS), **kw)


def _row(student="alice") -> Row:
    return Row(student, "01_devices", 5.0, 10.0, "graded", "", cells=dict(CELLS))


def _decision(decision, digest="d1", score=None, at="2026-01-01 10:00 UTC", student="alice"):
    return {"student": student, "notebook": "01_devices", "digest": digest, "decision": decision, "score": score,
            "at": at, "note": ""}


# ---------------------------------------------------------------------------------------------
# the row transformation
# ---------------------------------------------------------------------------------------------
def test_a_finding_makes_a_review_that_keeps_the_score():
    row = review.apply(_row(), _review(notes=["graded 'Copy of 01_devices.ipynb'"]), [])
    assert (row.status, row.score, row.cells) == ("review", 5.0, CELLS)
    assert "replaces torch.allclose" in row.message and "score kept" in row.message
    assert "Copy of" in row.message, "the row's other notes stay"
    assert row.csv()["score"] == "5"


def test_a_test_tampered_with_while_it_ran_scores_0_until_accepted():
    pending = review.apply(_row(), _review(untrusted=["test_b"]), [])
    assert pending.score == 2.0 and pending.cells["test_b"] == (0.0, 3.0) and "test_b" in pending.message
    accepted = review.apply(_row(), _review(untrusted=["test_b"]), [_decision("accept")])
    assert (accepted.status, accepted.score, accepted.cells) == ("graded", 5.0, CELLS)


def test_what_cannot_be_repaired_withholds_the_score():
    row = review.apply(_row(), _review(withheld=True), [])
    assert (row.status, row.score) == ("review", None)
    assert row.csv()["score"] == "" and "withheld" in row.message and "5/10" in row.message
    not_run = review.apply(_row(), _review(withheld=True, ran=False), [])
    assert not_run.score is None and "not run" in not_run.message


def test_accept_gives_nbgraders_score_and_reject_gives_0_or_the_instructors():
    accepted = review.apply(_row(), _review(withheld=True), [_decision("accept")])
    assert (accepted.status, accepted.score) == ("graded", 5.0) and "accepted" in accepted.message
    rejected = review.apply(_row(), _review(), [_decision("reject")])
    assert (rejected.status, rejected.score) == ("graded", 0.0)
    assert "rejected" in rejected.message and "instructor" in rejected.message
    assert all(s == 0 for s, _ in rejected.cells.values())
    given = review.apply(_row(), _review(), [_decision("reject", score=4)])
    assert given.score == 4 and sum(s for s, _ in given.cells.values()) == 4
    assert all(0 <= s <= mx for s, mx in given.cells.values())


def test_the_latest_decision_on_this_submission_wins():
    decisions = [_decision("accept", at="2026-01-01 10:00 UTC"), _decision("reject", at="2026-01-02 10:00 UTC"),
                 _decision("accept", student="bob")]
    assert review.apply(_row(), _review(), decisions).score == 0.0
    assert review.apply(_row(), _review(), decisions[:1]).score == 5.0


def test_a_changed_submission_is_reviewed_again():
    row = review.apply(_row(), _review(digest="d2"), [_decision("accept", digest="d1")])
    assert row.status == "review" and "another version" in row.message


def test_no_finding_leaves_the_row_alone():
    assert review.apply(_row(), None, [_decision("reject")]) == _row()


def test_the_digest_follows_the_code_not_the_outputs():
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    same = nbformat.from_dict(nb)
    same.cells[0].outputs = [nbformat.v4.new_output("stream", text="1")]
    same.cells[0].metadata["colab"] = {"id": "abc"}
    changed = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 2")])
    assert review.digest(nb) == review.digest(same) != review.digest(changed)


# ---------------------------------------------------------------------------------------------
# the store
# ---------------------------------------------------------------------------------------------
def test_store_keeps_findings_and_never_deletes_a_decision(tmp_path):
    flagged = review.apply(_row(), _review(), [])
    store = review.Store(tmp_path)
    store.record([flagged, _row("bob")])
    store.decide("alice", "01_devices", "accept", note="harmless")
    store.save()
    again = review.Store(tmp_path)
    assert again.findings["alice/01_devices"] == _review() and "bob/01_devices" not in again.findings
    with pytest.raises(KeyError):
        again.decide("bob", "01_devices", "accept")
    clean = _row()  # graded again without a finding: the finding goes, the decision stays
    again.record([clean])
    again.save()
    data = json.loads((tmp_path / review.FILE).read_text())
    assert data["findings"] == {} and len(data["decisions"]) == 1 and data["decisions"][0]["note"] == "harmless"
    assert review.settle(tmp_path, [clean], record=True) == [clean]


def test_settle_applies_decisions_to_a_later_run(tmp_path):
    first = review.settle(tmp_path, [review.apply(_row(), _review(), [])], record=True)
    assert first[0].status == "review"
    store = review.Store(tmp_path)
    store.decide("alice", "01_devices", "reject")
    store.save()
    later = review.settle(tmp_path, [review.apply(_row(), _review(), [])], record=True)
    assert (later[0].status, later[0].score) == ("graded", 0.0)
    resubmitted = review.settle(tmp_path, [review.apply(_row(), _review(digest="d9"), [])], record=True)
    assert resubmitted[0].status == "review"


def test_merge_of_shards_loses_and_doubles_nothing(tmp_path):
    a, b, out = (tmp_path / n for n in "abo")
    for folder, student in ((a, "alice"), (b, "bob")):
        folder.mkdir()
        store = review.Store(folder)
        store.record([review.apply(_row(student), _review(), [])])
        store.decide(student, "01_devices", "accept")
        store.save()
    out.mkdir()
    from graders.grading.merge import merge_reviews
    merge_reviews(out, [a, b])
    merge_reviews(out, [a, b])
    merged = review.Store(out)
    assert set(merged.findings) == {"alice/01_devices", "bob/01_devices"} and len(merged.decisions) == 2


def test_csv_round_trip_keeps_withheld_scores_empty(tmp_path):
    rows = [review.apply(_row(), _review(withheld=True), []), _row("bob")]
    write_csv(rows, tmp_path)
    with open(tmp_path / "grades_detail.csv", newline="") as f:
        detail = [d for d in csv.DictReader(f) if d["student_id"] == "alice"]
    assert {d["score"] for d in detail} == {""}
    back = read_csv(tmp_path)
    assert [(r.student_id, r.score, r.status) for r in back] == [("alice", None, "review"), ("bob", 5.0, "graded")]
    assert back[1].cells == CELLS


def test_review_command_decides_and_rewrites_the_table(tmp_path, capsys):
    from graders.__main__ import main
    rows = review.settle(tmp_path, [review.apply(_row(), _review(withheld=True), []), _row("bob")], record=True)
    write_csv(rows, tmp_path)
    assert main(["review", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert "alice 01_devices: score withheld" in listing and "replaces torch.allclose" in listing
    assert "bob" not in listing
    assert main(["review", str(tmp_path), "--accept", "bob", "01_devices"]) == 2, "nothing to review"
    assert main(["review", str(tmp_path), "--reject", "alice", "01_devices", "--score", "11"]) == 2, "over the maximum"
    assert main(["review", str(tmp_path), "--reject", "alice", "01_devices", "--score", "3"]) == 0
    table = {r.student_id: r for r in read_csv(tmp_path)}
    assert (table["alice"].status, table["alice"].score) == ("graded", 3.0) and "rejected" in table["alice"].message
    assert (table["bob"].status, table["bob"].score) == ("graded", 5.0)
    assert main(["review", str(tmp_path), "--accept", "alice", "01_devices"]) == 0
    assert read_csv(tmp_path)[0].score == 5.0
    assert len(review.Store(tmp_path).decisions) == 2


