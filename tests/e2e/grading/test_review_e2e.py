"""Tamper findings are reviews, not zeros (graders/grading/review.py, graders/commands/review.py).

One real-nbgrader run of a
flagged 01_devices (trimmed, as in tests/helpers/adversarial): status review with the score kept, nbgrader's
``flagged`` set, the feedback page silent about it, and an accept decision that a second
``autograde`` run still applies.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from graders.grading.autograde import read_csv


# ---------------------------------------------------------------------------------------------
# end to end, real nbgrader
# ---------------------------------------------------------------------------------------------
def _flagged(out: Path) -> dict[str, bool]:
    with sqlite3.connect(out / "course" / "gradebook.db") as con:
        return {student: bool(flag) for student, flag in con.execute(
            "select s.student_id, n.flagged from submitted_notebook n "
            "join submitted_assignment s on n.assignment_id = s.id")}


def test_a_flagged_submission_end_to_end(tmp_path):
    from graders.__main__ import main
    from graders.export.feedback import student_feedback
    from graders.grading.autograde import autograde
    from tests.helpers import adversarial as adv

    solutions = adv.trimmed_solutions(tmp_path / "solutions")
    patch = "torch.allclose = lambda *a, **k: True"  # put back by the guard before every test
    adv.write(adv.student_nb(adv.answers(train_one_epoch=patch)), tmp_path / "subs" / "patched" / f"{adv.NAME}.ipynb")
    adv.write(adv.student_nb(adv.answers("no-zero-grad", train_one_epoch=patch)),
              tmp_path / "subs" / "gamed" / f"{adv.NAME}.ipynb")
    out = tmp_path / "graded"

    rows = {r.student_id: r for r in autograde(tmp_path / "subs", out, names=[adv.NAME], solutions=solutions,
                                               progress=False)}
    assert (rows["patched"].status, rows["patched"].score) == ("review", adv.MAX), rows["patched"].message
    assert "torch.allclose" in rows["patched"].message
    gamed = rows["gamed"]
    assert (gamed.status, gamed.score) == ("review", adv.MAX - 3), gamed.message
    assert gamed.cells["test_train_one_epoch"][0] == 0, "the gamed test earns nothing"
    assert _flagged(out) == {"patched": True, "gamed": True}

    pages, refused = student_feedback(out, tmp_path / "feedback", [adv.NAME])
    assert not refused and len(pages) == 2
    page = (tmp_path / "feedback" / "patched" / adv.NAME / f"{adv.NAME}.html").read_text()
    for word in ("flagged", "tamper", "review", "REVIEW", "torch.allclose was replaced"):
        assert word not in page, f"the feedback page mentions {word!r}"

    assert main(["review", str(out), "--accept", "patched", adv.NAME]) == 0
    assert _flagged(out) == {"patched": False, "gamed": True}
    again = {r.student_id: r for r in autograde(tmp_path / "subs", out, names=[adv.NAME], solutions=solutions,
                                                progress=False)}
    assert (again["patched"].status, again["patched"].score) == ("graded", adv.MAX), again["patched"].message
    assert "accepted" in again["patched"].message
    assert again["gamed"].status == "review"
    assert _flagged(out) == {"patched": False, "gamed": True}
    table = {r.student_id: r for r in read_csv(out)}
    assert (table["patched"].status, table["patched"].score) == ("graded", adv.MAX)
