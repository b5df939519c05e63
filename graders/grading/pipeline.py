"""One notebook of one student, graded so that nothing in it can touch anything else.

The steps, in order, each in a module of its own (as nbgrader's ``converters/autograde.py`` declares its
preprocessors):

    PREPARE = sanitize.repair, sanitize.scan                    once, before any student code runs
    RUN     = guarding.add, execute.execute, score.score,       in a private course folder (``rundir``),
              judge.judge, publish.publish                      again after a neutralised cell

1. **sanitize**: the submission repaired against the released notebook (``graders.intake.repair``) and
   read, never run, for tampering (``tamper.static_scan``).
2. **guard**: the in-kernel guard's cells added (``graders.grading.guard``), configured for this run.
3. **execute**: ``nbgrader autograde`` in a private course folder made for this run alone (fresh copies of the
   project's config and the pristine gradebook), in a process of its own with the limits of
   ``graders.limits``, a private HOME and TMPDIR. The kernel cannot reach the shared gradebook: the guard's
   audit hook refuses it, and it is not where nbgrader writes. If the kernel died or the notebook ran out of
   time, the cell that was running is neutralised and the notebook graded again (at most twice).
4. **score**: nbgrader's scores, checked against the graded notebook's outputs and the released points.
5. **judge**: the row; where anything was found, a review (``graders.grading.review``): the repaired score
   kept, or withheld where nothing can repair it.
6. **publish**: the graded notebook, the submission as handed in and the grades into the shared course folder.

A step returns None to go on, ``RETRY`` to grade again from step 2, or the final :class:`Row`.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from graders import limits, nbtools
from graders.grading import execute, guarding, judge, kernels, publish, rundir, sanitize, score, tamper, warm
from graders.grading.job import RETRY, Job
from graders.grading.row import Row
from graders.intake import match as intake
from graders.paths import REPO

PREPARE = (sanitize.repair, sanitize.scan)
RUN = (guarding.add, execute.execute, score.score, judge.judge, publish.publish)


def start(root: Path, out: Path, student: str, item: intake.Intake, max_score: float) -> Job:
    name = item.notebook
    release = nbtools.read(Path(root) / "release" / name / f"{name}.ipynb")
    source = nbformat.reads(rundir.pristine(root)[f"source/{name}/{name}.ipynb"].decode(), as_version=4)
    return Job(Path(root), Path(out), student, item, max_score, release, source, nbtools.test_points(release))


def grade_one(root: Path, out: Path, student: str, item: intake.Intake, max_score: float,
              slot: warm.Slot | None = None) -> Row:
    """The row of one notebook of one student, through ``PREPARE`` and then ``RUN`` (in ``slot``, when warm)."""
    if item.problem:
        return Row(student, item.notebook, 0.0, max_score, "failed", item.problem)
    job = start(root, out, student, item, max_score)
    job.slot = slot if slot is not None and slot.usable() else None
    for step in PREPARE:
        result = step(job)
        if result is not None:
            return result
    if limits.WATCH_FILES:
        deep = [REPO / "gpucourse"] + ([Path(item.folder).resolve().parent] if item.folder is not None else [])
        job.watch = tamper.FileWatch(deep=deep, shallow=tamper.site_packages())
    for job.attempt in range(1, execute.MAX_RERUNS + 2):
        slot = job.slot
        if slot is not None:
            slot.sweep()
        run = rundir.make(root, item.notebook, kernel_parent=slot.kernels if slot else None)
        kernels.write_spec(run, slot.socket_path if slot else None)
        try:
            for step in RUN:
                result = step(job, run)
                if result is RETRY:
                    break
                if result is not None:
                    return result
        finally:
            rundir.remove(run)
    return Row(student, item.notebook, 0.0, max_score, "failed", "; ".join(job.skipped) or "could not be graded")
