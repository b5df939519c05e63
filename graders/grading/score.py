"""Step 4, score: nbgrader's scores, checked against the graded notebook's outputs and the released points.

A test scores what nbgrader gave it, at most its released points; a test during which the guard saw
tampering scores 0 until a review accepts it; a gradebook that disagrees with the graded notebook is
evidence that withholds the score. Every test that scored less than its points gets its reason, read from its
outputs (``graders.grading.reasons``).
"""

from __future__ import annotations

from pathlib import Path

from graders import nbtools
from graders.grading import execute, reasons
from graders.grading.job import Attempt, Job
from graders.paths import COURSE_ID


def gradebook_cells(db: Path, student: str, name: str) -> tuple[dict, list[str]]:
    """{grade_id: (autograder's score, points)} and the tests nbgrader left for a manual grade."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}", course_id=COURSE_ID) as gb:
        sub = gb.find_submission_notebook(name, name, student)
        # the autograder's own scores: a manual grade the instructor gave earlier is not this run's result
        cells = {g.name: (float(g.auto_score or 0), float(g.max_score)) for g in sub.grades if g.max_score}
        pending = [g.name for g in sub.grades if g.max_score and g.auto_score is None and g.manual_score is None]
    return cells, pending


def max_scores(root: Path, names: list[str]) -> dict[str, float]:
    return {n: sum(nbtools.test_points(nbtools.read(root / "release" / n / f"{n}.ipynb")).values()) for n in names}


def notebook_cells(graded_nb) -> dict[str, tuple[float, float]]:
    """{grade_id: (score, points)} as the graded notebook's outputs say (nbgrader's own rule)."""
    from nbgrader.utils import determine_grade, is_grade

    cells = {}
    for cell in graded_nb.cells:
        if is_grade(cell) and not nbtools.is_solution_cell(cell):
            score, mx = determine_grade(cell)
            cells[nbtools.grade_id(cell)] = (float(score or 0), float(mx))
    return cells


def score(job: Job, attempt: Attempt) -> None:
    cells, pending = gradebook_cells(attempt.run / "course" / "gradebook.db", job.student, job.name)
    graded_nb = nbtools.read(attempt.graded)
    from_nb = notebook_cells(graded_nb)
    attempt.cells = {gid: (min(from_nb.get(gid, (0.0, 0.0))[0], pts), pts) for gid, pts in job.points.items()}
    if any(abs(cells.get(gid, (0.0, 0.0))[0] - attempt.cells[gid][0]) > 1e-9 for gid in job.points):
        attempt.broken.append("the gradebook and the graded notebook disagree")
    # a test during which something was tampered with proves nothing: 0 until a review accepts it
    per_test = attempt.report.per_test
    attempt.untrusted = [gid for gid in job.points if per_test.get(gid) and attempt.cells[gid][0] > 0]
    attempt.taken = {gid: "; ".join(per_test[gid][:2]) for gid in attempt.untrusted}
    attempt.reasons = reasons.notebook_reasons(graded_nb, attempt.cells)
    attempt.reasons.update({gid: "not graded automatically: a manual grade in the formgrader decides"
                            for gid in pending if gid in attempt.reasons})
    # what changes the score first: the message quotes only the first few
    zeroed = [f"{gid} scores 0 until reviewed (nbgrader gave {attempt.cells[gid][0]:g}): "
              + "; ".join(per_test[gid][:2]) for gid in attempt.untrusted]
    job.evidence = list(dict.fromkeys(attempt.broken + zeroed + job.evidence))
    timed_out = execute.timeouts(graded_nb)
    attempt.extra = []
    if job.skipped:
        attempt.extra.append("graded again " + "; and again ".join(job.skipped))
    if timed_out:
        attempt.extra.append(f"stopped after the {job.limits.cell_timeout_s} s cell limit: " + ", ".join(timed_out))
    if pending:
        attempt.extra.append("not graded automatically: " + ", ".join(pending))
    if attempt.report.notes:
        attempt.extra.append("note: " + "; ".join(attempt.report.notes[:3]))
