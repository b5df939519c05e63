"""The rows of a results folder as a run grades: written as each notebook finishes (:class:`RunRecord`) and when
the run ends (:func:`record_run`), both through :func:`settled`, so what a stopped run left is what a finished one
would have written for the same notebooks.

Every write keeps the rows of earlier runs (a rerun adds and updates, never deletes), records the findings of what
this run graded in ``reviews.json``, applies every decision taken there, and shows the instructor's manual grades
from nbgrader's gradebook; at the end the gradebook is told the same (``review.sync_gradebook``).
"""

from __future__ import annotations

from pathlib import Path

from graders.grading import finished, gradebook_rows, review
from graders.grading.graded_folder import has_gradebook, keep, read_rows, write_csv
from graders.grading.row import Row


def record_run(out: Path, root: Path, graded: list[Row]) -> list[Row]:
    """This run's rows into ``out`` once it ends: as :class:`RunRecord` wrote them row by row, with the manual
    grades read from the gradebook now; the gradebook told the same."""
    previous = read_rows(out)
    rows = settled(out, root, previous, graded)
    review.sync_gradebook(root, rows)
    write_csv(rows, out)
    return rows


def settled(out: Path, root: Path, previous: list[Row], graded: list[Row], manual: dict | None = None) -> list[Row]:
    """Every row of ``out``: findings of what this run ``graded`` recorded, earlier rows of what it did not grade
    kept, every decision applied, the instructor's manual grades shown (``manual``: as read earlier; None: read
    from the gradebook now). One function for the rows written as a run goes and the rows written at its end."""
    rows = keep(previous, graded)
    rows = review.settle_run(out, graded, rows)
    return gradebook_rows.refresh(root, rows, manual)


class RunRecord:
    """A run's rows into ``out`` as each finishes: ``grades.csv``, ``grades_detail.csv`` and ``reviews.json`` as
    :func:`record_run` writes them at the end, then the row's fingerprint (``graders.grading.finished``), so a
    run that stops keeps every row it graded and its rerun knows what it need not grade again."""

    def __init__(self, out: Path, root: Path):
        self.out, self.root = Path(out), Path(root)
        self.previous = read_rows(self.out)
        self.before = {(r.student_id, r.notebook): r for r in self.previous}
        # read once: the gradebook's manual grades do not change while the run publishes autograder scores
        self.manual = gradebook_rows.instructor_scores(self.root) if has_gradebook(self.root) else {}
        self.inputs = finished.Inputs(self.out)
        self.graded: list[Row] = []

    def earlier(self, student: str, notebook: str) -> Row | None:
        return self.before.get((student, notebook))

    def add(self, row: Row, fp: str | None) -> None:
        """One finished row (one thread at a time: the caller holds the lock)."""
        self.graded.append(row)
        # the pair's old fingerprint goes before its new row is written, the new one after: a stop between the
        # writes leaves no fingerprint, never one that vouches for a row it was not taken for
        self.inputs.set(row.student_id, row.notebook, None)
        self.inputs.save()
        write_csv(settled(self.out, self.root, self.previous, self.graded, self.manual), self.out)
        self.inputs.set(row.student_id, row.notebook, fp)
        self.inputs.save()
