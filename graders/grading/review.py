"""Tamper findings are reviews, not zeros: the rows they make and the instructor's decisions.

The guard puts back whatever student code patched before each test, so the score nbgrader computed
with those repairs gives a patch made in an answer cell nothing. A test during which something was
tampered with (``GuardReport.per_test``: a patch while it ran, a returned object whose ``==`` lies)
cannot be repaired that way, so it scores 0 while the review is pending (``Review.untrusted``).
A notebook with any finding keeps that score, with status ``review`` and the evidence in the
message; nbgrader's gradebook gets ``flagged`` (the formgrader shows it; the feedback page does not).

Only what cannot be repaired *withholds* the score: a guard log that is not whole (forged, cut,
checkpoints missing), files changed outside the run (``FileWatch``), a gradebook that disagrees
with the graded notebook, a flagged notebook not run (``GRADER_RUN_FLAGGED=0``). Such a row has
status ``review`` and an **empty** score cell, which spreadsheet and LMS imports read as "no grade
yet", never as 0; the message gives the score nbgrader computed.

Decisions live in ``DIR/reviews.json``, next to ``grades.csv``::

    {"findings": {"alice/01_devices": {Review fields}},
     "decisions": [{"student", "notebook", "digest", "decision": "accept"|"reject", "score", "at", "note"}]}

``findings`` holds what the latest grading run found; ``decisions`` only grows. The latest decision
for a student, notebook *and submission digest* applies, so a changed submission is reviewed again.
Every ``autograde``, ``merge`` and ``review`` run applies them: accepted -> ``graded`` with
nbgrader's score (untrusted tests included) or the instructor's ``--score``; rejected -> ``graded``
with 0 or the instructor's ``--score``, and a message saying the instructor rejected it.

Every test cell that lost points says why (``Row.reasons``, ``grades_detail.csv``'s ``reason``):
:func:`cell_reasons` adds to what its graded cell showed (``graders.grading.reasons``) what no output shows: the
points a tamper check took (the guard's finding), what withheld the score, the instructor's decision.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from graders.grading import graded_folder
from graders.grading.graded_folder import read_csv, write_csv
from graders.paths import course_root

FILE = graded_folder.REVIEWS
SHOWN = 4  # findings quoted in a message; the log has every one


@dataclass
class Review:
    """What a flagged notebook's row needs to be rebuilt under any decision."""
    digest: str                                   # of the submission's cells (see :func:`digest`)
    withheld: bool                                # True: something could not be repaired
    evidence: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # the row's other messages (intake, reruns)
    cells: dict = field(default_factory=dict)     # grade_id -> (score, max_score) as nbgrader computed them
    untrusted: list[str] = field(default_factory=list)  # tests tampered with while they ran: 0 until accepted
    ran: bool = True                              # False: flagged and not run (GRADER_RUN_FLAGGED=0)
    reasons: dict = field(default_factory=dict)   # grade_id -> why nbgrader gave it less (graders.grading.reasons)
    taken: dict = field(default_factory=dict)     # untrusted test -> what the guard saw while it ran
    broken: list[str] = field(default_factory=list)  # the findings that withhold the score (``withheld``)

    def pending_cells(self) -> dict:
        return {gid: (0.0 if gid in self.untrusted else s, mx) for gid, (s, mx) in self.cells.items()}

    def pending_score(self) -> float:
        return sum(s for s, _ in self.pending_cells().values())

    def nbgrader_score(self) -> float:
        return sum(s for s, _ in self.cells.values())

    def to_json(self) -> dict:
        data = dataclasses.asdict(self)
        data["cells"] = {k: list(v) for k, v in self.cells.items()}
        return data

    @classmethod
    def from_json(cls, data: dict) -> Review:
        names = {f.name for f in dataclasses.fields(cls)}
        review = cls(**{k: v for k, v in data.items() if k in names})
        review.cells = {k: tuple(v) for k, v in review.cells.items()}
        return review


def digest(nb) -> str:
    """A hash of what the student wrote (cell types and sources; outputs and metadata do not count)."""
    cells = [[c.get("cell_type", ""), c.get("source", "")] for c in nb.get("cells", [])]
    return hashlib.sha256(json.dumps(cells, sort_keys=True).encode()).hexdigest()[:16]


def _evidence_text(evidence: list[str]) -> str:
    more = f" (+{len(evidence) - SHOWN} more in the log)" if len(evidence) > SHOWN else ""
    return "; ".join(evidence[:SHOWN]) + more


def pending_message(review: Review, max_score: float, stale: dict | None = None) -> str:
    if not review.ran:
        head = "review: score withheld (not run, so not computed); found: "
    elif review.withheld:
        head = f"review: score withheld (nbgrader computed {review.nbgrader_score():g}/{max_score:g}); found: "
    elif review.untrusted:
        head = (f"review: score kept at {review.pending_score():g}/{max_score:g} with the guard's repairs "
                f"({', '.join(review.untrusted)} at 0 until accepted; nbgrader gave {review.nbgrader_score():g}); "
                "found: ")
    else:
        head = f"review: score kept ({review.pending_score():g}/{max_score:g} with the guard's repairs); found: "
    parts = [head + _evidence_text(review.evidence)]
    if stale:
        parts.append(f"an earlier decision ({stale['decision']}, {stale['at']}) was for another version "
                     "of this submission")
    return "; ".join(parts + review.notes)


def cells_for(review: Review, score: float) -> dict:
    """Test cells summing to ``score``: nbgrader's if they do, else filled in order up to it."""
    if abs(review.nbgrader_score() - score) < 1e-9:
        return dict(review.cells)
    left, cells = score, {}
    for gid, (_, mx) in review.cells.items():
        got = min(mx, max(left, 0.0))
        cells[gid] = (got, mx)
        left -= got
    return cells


def cell_reasons(review: Review, cells: dict, decision: dict | None = None) -> dict:
    """{grade_id: reason} for the test cells of ``cells`` (the row's, under ``decision``) that lost points: what
    the graded notebook showed (``review.reasons``), and what it cannot show: points a tamper check took, a score
    withheld, the instructor's decision."""
    if decision is not None:
        if decision["decision"] == "reject":
            note = f" ({decision['note']})" if decision.get("note") else ""
            said = (f"rejected after review by the instructor ({decision['at']}){note}: "
                    + _evidence_text(review.evidence[:2]))
            return {gid: said for gid, (s, mx) in cells.items() if s < mx}
        if decision.get("score") is None:  # accepted: nbgrader's own scores and reasons
            return dict(review.reasons)
        return {gid: f"the instructor gave {decision['score']:g} for the notebook after review ({decision['at']})"
                + (f"; {review.reasons[gid]}" if review.reasons.get(gid) else "")
                for gid, (s, mx) in cells.items() if s < mx}
    found = dict(review.reasons)
    for gid in review.untrusted:
        got = review.cells.get(gid, (0.0, 0.0))[0]
        seen = review.taken.get(gid) or _evidence_text(review.evidence[:2])
        found[gid] = (f"nbgrader gave {got:g}, but a tamper check took the points until a review accepts them: "
                      f"{seen}")
    if review.withheld or not review.ran:
        why = ("not run (GRADER_RUN_FLAGGED=0), so not computed" if not review.ran
               else _evidence_text(review.broken or review.evidence))
        found = {gid: f"score withheld until reviewed: {why}" + (f"; {found[gid]}" if found.get(gid) else "")
                 for gid in cells}
    return found


def decision_for(decisions: list[dict], student: str, notebook: str, digest_: str) -> tuple[dict | None, dict | None]:
    """(the latest decision on this very submission, the latest on any version of it)."""
    same = [d for d in decisions if (d["student"], d["notebook"]) == (student, notebook)]
    current = [d for d in same if d["digest"] == digest_]
    return (current[-1] if current else None), (same[-1] if same else None)


def apply(row, review: Review | None, decisions: list[dict]):
    """The row as the instructor's latest decision on this very submission makes it."""
    if review is None:
        return row
    decision, latest = decision_for(decisions, row.student_id, row.notebook, review.digest)
    if decision is None:
        score = None if review.withheld or not review.ran else review.pending_score()
        cells = review.pending_cells()
        return dataclasses.replace(row, status="review", score=score, cells=cells, review=review,
                                   reasons=cell_reasons(review, cells),
                                   message=pending_message(review, row.max_score, latest))
    note = f" ({decision['note']})" if decision.get("note") else ""
    if decision["decision"] == "accept":
        score = review.nbgrader_score() if decision.get("score") is None else float(decision["score"])
        head = f"accepted after review by the instructor ({decision['at']}){note}: "
    else:
        score = 0.0 if decision.get("score") is None else float(decision["score"])
        head = f"rejected after review by the instructor ({decision['at']}){note}, score {score:g}: "
    message = "; ".join([head + _evidence_text(review.evidence)] + review.notes)
    cells = cells_for(review, score)
    return dataclasses.replace(row, status="graded", score=score, cells=cells, review=review,
                               reasons=cell_reasons(review, cells, decision), message=message)


# ---------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------
def key(student: str, notebook: str) -> str:
    return f"{student}/{notebook}"


class Store:
    """``DIR/reviews.json``: the latest findings and every decision ever taken."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / FILE
        data = graded_folder.read_json(self.path)
        self.findings: dict[str, Review] = {k: Review.from_json(v) for k, v in data.get("findings", {}).items()}
        self.decisions: list[dict] = list(data.get("decisions", []))

    def save(self) -> None:
        data = {"findings": {k: v.to_json() for k, v in sorted(self.findings.items())},
                "decisions": self.decisions}
        graded_folder.write_json(self.path, data)  # never a half-written file, whatever stops this process

    def record(self, rows) -> None:
        """Keep what this run found for the pairs it graded (a pair graded clean loses its finding)."""
        for row in rows:
            k = key(row.student_id, row.notebook)
            if row.review is not None:
                self.findings[k] = row.review
            else:
                self.findings.pop(k, None)

    def decide(self, student: str, notebook: str, decision: str, score: float | None = None,
               note: str = "") -> dict:
        review = self.findings.get(key(student, notebook))
        if review is None:
            raise KeyError(f"{student}/{notebook} has no finding to review in {self.path}")
        entry = {"student": student, "notebook": notebook, "digest": review.digest, "decision": decision,
                 "score": score, "note": note,
                 "at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")}
        self.decisions.append(entry)
        return entry

    def apply(self, rows) -> list:
        def finding(r):
            return None if r.status == "failed" else r.review or self.findings.get(key(r.student_id, r.notebook))
        return [apply(r, finding(r), self.decisions) for r in rows]

    def merge(self, other: Store) -> None:
        """Take another folder's findings and decisions (shards); no decision is lost or doubled."""
        self.findings.update(other.findings)
        seen = {json.dumps(d, sort_keys=True) for d in self.decisions}
        for d in other.decisions:
            if json.dumps(d, sort_keys=True) not in seen:
                self.decisions.append(d)
                seen.add(json.dumps(d, sort_keys=True))
        self.decisions.sort(key=lambda d: d["at"])  # stable: same-minute decisions keep their order


def reapply(folder: Path) -> list:
    """Apply every decision to ``folder``'s grades.csv, grades_detail.csv and gradebook; the rows."""
    rows = settle(folder, read_csv(folder), record=False)
    root = course_root(folder)
    if graded_folder.has_gradebook(root):
        from graders.grading.gradebook_rows import refresh
        rows = refresh(root, rows)
        sync_gradebook(root, rows)
    write_csv(rows, Path(folder))
    return rows


def settle(folder: Path, rows, record: bool) -> list:
    """Apply every decision in ``folder`` to ``rows``; with ``record``, first store their findings."""
    return settle_run(folder, rows if record else None, rows)


def settle_run(folder: Path, graded, rows) -> list:
    """Record the findings of the pairs this run ``graded`` (None: record nothing), then apply every decision
    to all ``rows``."""
    store = Store(folder)
    if graded is not None:
        store.record(graded)
        store.save()
    return store.apply(rows)


def sync_gradebook(root: Path, rows) -> None:
    """Make nbgrader's gradebook say what the rows say: ``flagged`` on every notebook under review
    (the formgrader shows it; the student's feedback page does not), and a manual score on any
    test cell whose score the review changed (a test tampered with while it ran, a rejection);
    none on the others, as ``nbgrader autograde`` leaves them. A manual score the instructor gave
    (one not in the ledger of those written here) is never touched."""
    from nbgrader.api import Gradebook, MissingEntry

    from graders.grading.gradebook_rows import cell_key, is_instructors
    from graders.paths import COURSE_ID

    ledger = graded_folder.read_ledger(root)
    with Gradebook(graded_folder.gradebook_url(root), course_id=COURSE_ID) as gb:
        for row in rows:
            try:
                nb = gb.find_submission_notebook(row.notebook, row.notebook, row.student_id)
            except MissingEntry:
                continue
            nb.flagged = row.status == "review"
            for grade in nb.grades:
                if grade.name not in row.cells:
                    continue
                k = cell_key(row.student_id, row.notebook, grade.name)
                if is_instructors(grade.manual_score, ledger.get(k)):
                    ledger.pop(k, None)  # the instructor's grade stands
                    continue
                want = row.cells[grade.name][0]
                if abs(float(grade.auto_score or 0) - want) < 1e-9:
                    grade.manual_score = None
                    ledger.pop(k, None)
                else:
                    grade.manual_score = ledger[k] = want
        gb.db.commit()
    graded_folder.write_ledger(root, ledger)
