"""Step 5, set-up: a notebook whose course set-up cell raised in the grading kernel is not graded (issue 39).

Every notebook starts with the course's set-up cell (nbgrader id ``setup``, read-only: nbgrader restores its source
from the release). When it raises, the kernel could not run the course (the helper package, torch or the data out of
its reach), every test then fails for that reason alone, and nbgrader's score would be a zero that says nothing about
the student. So the row is ``failed`` with the cause in its message, nothing is published to the gradebook or the
LMS export, and the next run grades it again (``graders.grading.finished`` keeps only ``graded`` and ``review``
rows). The pre-flight (``graders.grading.preflight``) finds the same causes before any notebook is graded; this step
catches what only one notebook meets.
"""

from __future__ import annotations

from graders import nbtools
from graders.grading.job import Attempt, Job
from graders.grading.row import Row

#: the nbgrader id of every notebook's set-up cell (``sources/*.py``)
SETUP_ID = "setup"
#: how a set-up failure's message starts: the summary counts these rows apart (``autograde.table_lines``)
FAILED = "the course's set-up cell failed in the grading kernel"


def setup_cell(nb):
    """The notebook's set-up cell, or None."""
    return next((c for c in nb.cells if c.cell_type == "code" and nbtools.grade_id(c) == SETUP_ID), None)


def error_of(cell) -> str | None:
    """``"ename: first line of evalue"`` of the cell's first error output; None when it raised nothing."""
    for output in cell.get("outputs", []) if cell is not None else []:
        if output.get("output_type") == "error":
            first = next((line for line in str(output.get("evalue", "")).splitlines() if line.strip()), "")
            return f"{output.get('ename', 'Error')}: {first}".rstrip(": ")[:300]
    return None


def students_cells_before(nb) -> int:
    """How many code cells a student added above the set-up cell (they ran before it); 0 when none."""
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and nbtools.grade_id(cell) == SETUP_ID:
            return count
        if cell.cell_type == "code" and not cell.metadata.get("grader_guard") and not nbtools.grade_id(cell):
            count += 1
    return 0


def message(error: str, added_above: int = 0) -> str:
    why = (f" after {added_above} code cell(s) the student added above it ran first; if they are the cause, the "
           "instructor decides" if added_above else
           " this is the grading machine's to fix, not the student's; the next run grades it again")
    return f"{FAILED} ({error}), so nothing was graded:{why}"


def setup_ran(job: Job, attempt: Attempt):
    """None when the set-up cell ran without an error (or the notebook has none); else the ``failed`` row."""
    if attempt.graded is None or not attempt.graded.exists():
        return None  # nothing was graded: ``execute`` has given that its own row
    graded = nbtools.read(attempt.graded)
    error = error_of(setup_cell(graded))
    if error is None:
        return None
    return Row(job.student, job.name, 0.0, job.max_score, "failed", message(error, students_cells_before(graded)))
