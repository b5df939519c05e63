"""One notebook of one student, graded so that nothing in it can touch anything else.

The steps, in order, each in a module of its own (as nbgrader's ``converters/autograde.py`` declares its
preprocessors):

    PREPARE = sanitize.repair, sanitize.scan, watch.start       once, before any student code runs
    RUN     = guarding.add, execute.execute,                    in a private course folder (``rundir``),
              setup_cell.setup_ran, score.score,                again after a neutralised cell
              verdict.verdict, publish.publish

1. **sanitize**: the submission repaired against the released notebook (``graders.intake.repair``) and
   read, never run, for tampering (``graders.grading.scan``).
2. **watch**: with ``GRADER_WATCH_FILES=1``, the file watch (``graders.grading.watch``) starts over the helper
   package, the venv's start-up files and the submissions; ``execute`` checks it after every attempt.
3. **guard**: the in-kernel guard's cells added (``graders.grading.guard_cells``), configured for this run.
4. **execute**: ``nbgrader autograde`` in a private course folder made for this run alone (fresh copies of the
   project's config and the pristine gradebook), in a process of its own under the run's ``Limits``, a private
   HOME and TMPDIR; then the guard's signed log read back (``graders.grading.guard_log``) and the file watch
   checked. The kernel cannot reach the shared gradebook: the guard's audit hook refuses it, and it is not where
   nbgrader writes. If the kernel died or the notebook ran out of time, the cell that was running is neutralised
   and the notebook graded again (at most twice).
5. **set-up**: a notebook whose course set-up cell raised is a ``failed`` row with the cause, never a score
   (``graders.grading.setup_cell``): the kernel could not run the course, so its zeros say nothing of the student.
6. **score**: nbgrader's scores, checked against the graded notebook's outputs and the released points.
7. **verdict**: the row; where anything was found, a review (``graders.grading.review``): the repaired score
   kept, or withheld where nothing can repair it.
8. **publish**: the graded notebook, the submission as handed in and the grades into the shared course folder.

A ``PREPARE`` step takes the :class:`Job` (the submission); a ``RUN`` step the job and this attempt's
:class:`Attempt` (its run folder, guard key and log, graded notebook, scores). A step returns None to go on,
``RETRY`` to grade again from the guard step (a new attempt), or the final :class:`Row`.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from graders import nbtools
from graders.grading import (
    execute,
    guarding,
    kernels,
    publish,
    rundir,
    sanitize,
    score,
    setup_cell,
    verdict,
    warm,
    watch,
)
from graders.grading.job import RETRY, Attempt, Job
from graders.grading.row import Row
from graders.intake import student_files as intake
from graders.limits import Limits

PREPARE = (sanitize.repair, sanitize.scan, watch.start)
RUN = (guarding.add, execute.execute, setup_cell.setup_ran, score.score, verdict.verdict, publish.publish)


def start(root: Path, out: Path, student: str, item: intake.Intake, max_score: float,
          limits: Limits | None = None) -> Job:
    limits = Limits() if limits is None else limits
    name = item.notebook
    release = nbtools.read(Path(root) / "release" / name / f"{name}.ipynb")
    source = nbformat.reads(rundir.pristine(root, limits)[f"source/{name}/{name}.ipynb"].decode(), as_version=4)
    return Job(Path(root), Path(out), student, item, max_score, release, source, nbtools.test_points(release), limits)


def grade_one(root: Path, out: Path, student: str, item: intake.Intake, max_score: float,
              slot: warm.Slot | None = None, limits: Limits | None = None) -> Row:
    """The row of one notebook of one student, through ``PREPARE`` and then ``RUN`` (in ``slot``, when warm), under
    the run's ``limits`` (by default the documented defaults: ``autograde`` passes those it read once)."""
    if item.problem:
        return Row(student, item.notebook, 0.0, max_score, "failed", item.problem)
    job = start(root, out, student, item, max_score, limits)
    job.slot = slot if slot is not None and slot.usable() else None
    for step in PREPARE:
        result = step(job)
        if result is not None:
            return result
    for number in range(1, execute.MAX_RERUNS + 2):
        slot = job.slot
        if slot is not None:
            slot.sweep()
        run = rundir.make(root, item.notebook, kernel_parent=slot.kernels if slot else None, limits=job.limits)
        kernels.write_spec(run, slot.socket_path if slot else None)
        attempt = Attempt(number, run)
        try:
            for step in RUN:
                result = step(job, attempt)
                if result is RETRY:
                    break
                if result is not None:
                    return result
        finally:
            rundir.remove(run)
    return Row(student, item.notebook, 0.0, max_score, "failed", "; ".join(job.skipped) or "could not be graded")
