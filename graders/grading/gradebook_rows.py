"""The gradebook's word on the result rows: manual grades given in nbgrader's formgrader.

nbgrader's gradebook is the system of record. A test cell's score there is the instructor's manual
score when one was given, else the autograder's. ``graders.grading.review`` also writes manual scores (a test
tampered with while it ran, a rejection); those are listed in the ledger beside the gradebook
(``graded_folder.LEDGER``), so that
every other manual score is known to be the instructor's, is never overwritten, and shows in
``grades.csv`` as it shows in the formgrader and in every export.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from graders.grading import graded_folder
from graders.paths import COURSE_ID

NOTE = "manual grade in the gradebook (formgrader): "


def cell_key(student: str, notebook: str, grade_id: str) -> str:
    return f"{student}/{notebook}/{grade_id}"


def is_instructors(manual: float | None, ours: float | None) -> bool:
    """A manual score the review did not write (or changed since it wrote it)."""
    return manual is not None and (ours is None or abs(float(manual) - ours) > 1e-9)


def instructor_scores(root: Path) -> dict[tuple[str, str], dict[str, tuple[float, float | None]]]:
    """{(student, notebook): {grade_id: (manual score, autograder's score)}} for the instructor's manual grades."""
    from nbgrader.api import Gradebook

    ledger = graded_folder.read_ledger(root)
    found: dict = {}
    with Gradebook(graded_folder.gradebook_url(root), course_id=COURSE_ID) as gb:
        for assignment in gb.assignments:
            for sub in assignment.submissions:
                for nb in sub.notebooks:
                    for grade in nb.grades:
                        ours = ledger.get(cell_key(sub.student.id, nb.name, grade.name))
                        if is_instructors(grade.manual_score, ours):
                            found.setdefault((sub.student.id, nb.name), {})[grade.name] = (
                                float(grade.manual_score), grade.auto_score)
    return found


def refresh(root: Path, rows: list, manual: dict | None = None) -> list:
    """The rows with the instructor's manual grades in place of the autograder's, and said so (``manual``: those
    :func:`instructor_scores` read earlier, for a caller that refreshes after every row of a run)."""
    if manual is None:
        manual = instructor_scores(root) if graded_folder.has_gradebook(root) else {}
    return [_with_manual(row, manual.get((row.student_id, row.notebook), {})) for row in rows]


def _with_manual(row, manual: dict):
    if not manual or row.score is None or row.status == "failed":
        return row
    cells = dict(row.cells)
    said = []
    reasons = dict(row.reasons)  # a cell the instructor graded says so in grades_detail.csv, then what it showed
    for gid, (score, auto) in manual.items():
        if gid in cells:
            cells[gid] = (score, cells[gid][1])
            said.append(f"{gid} {score:g}" + ("" if auto is None else f" (autograder: {float(auto):g})"))
            shown = reasons.get(gid) or ""
            if shown.startswith(NOTE):  # a rerun's own, from grades_detail.csv: what the cell showed follows " | "
                shown = shown.partition(" | ")[2]
            reasons[gid] = f"{NOTE}{score:g} of {cells[gid][1]:g}" + (f" | {shown}" if shown else "")
    if not said:
        return row
    note = NOTE + ", ".join(said)
    earlier = [part for part in row.message.split("; ") if part and not part.startswith(NOTE)]  # a rerun's own
    message = "; ".join([note] + earlier)
    return dataclasses.replace(row, cells=cells, score=sum(s for s, _ in cells.values()), message=message,
                               reasons=reasons)
