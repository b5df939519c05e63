"""What the grading steps of one notebook of one student share (``graders.grading.pipeline``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from graders import nbtools
from graders.grading.guard_log import GuardReport
from graders.grading.watch import FileWatch
from graders.intake import student_files as intake
from graders.limits import Limits

#: a step's answer that means "grade again from the guard step" (a cell was neutralised)
RETRY = object()


def test_sources(source: nbformat.NotebookNode) -> list[str]:
    """The test cells of the instructor's notebook, hidden tests included."""
    return [c.source for c in source.cells if nbtools.is_test_cell(c)]


def trusted_sources(release: nbformat.NotebookNode, source: nbformat.NotebookNode) -> list[str]:
    """The code the grader trusts: the released cells a student does not write, and the tests."""
    released = [c.source for c in release.cells if c.cell_type == "code" and not nbtools.is_solution_cell(c)]
    return released + test_sources(source)


@dataclass
class Job:
    """One notebook of one student: the submission, and what holds across every attempt at grading it."""
    root: Path                      # the shared course folder results are published into
    out: Path                       # the results folder (logs)
    student: str
    item: intake.Intake             # what intake found: the notebook, its path, its notes
    max_score: float
    release: nbformat.NotebookNode  # the released notebook
    source: nbformat.NotebookNode   # the instructor's notebook (hidden tests)
    points: dict                    # grade_id -> points of every test cell
    limits: Limits = field(default_factory=Limits)  # this run's, made once where the command started
    nb: nbformat.NotebookNode | None = None   # the repaired submission that is graded (a rerun neutralises a cell)
    notes: list[str] = field(default_factory=list)      # what intake repaired, for the message
    findings: list[str] = field(default_factory=list)   # the static scan's
    evidence: list[str] = field(default_factory=list)   # every finding of every attempt
    poisoned: list[str] = field(default_factory=list)   # tests failed at once (running them stopped grading)
    skipped: list[str] = field(default_factory=list)    # what a rerun left out, for the message
    watch: FileWatch | None = None  # the file watch, when the limits ask for it (``watch_files``)
    slot: object | None = None      # the warm slot that grades it (graders.grading.warm); None: a cold start

    @property
    def name(self) -> str:
        return self.item.notebook

    @property
    def tests(self) -> list[str]:
        return list(self.points)

    @property
    def log_path(self) -> Path:
        return Path(self.out) / "logs" / self.student / f"{self.name}.log"

    def log_findings(self) -> None:
        with open(self.log_path, "a") as log:
            log.write("=== findings (for review)\n" + "\n".join(self.evidence) + "\n")

    def test_sources(self) -> list[str]:
        return test_sources(self.source)

    def trusted_sources(self) -> list[str]:
        return trusted_sources(self.release, self.source)


@dataclass
class Attempt:
    """What one attempt at grading a :class:`Job` found; a rerun after a neutralised cell is the next attempt,
    in a fresh private run folder."""
    number: int                     # 1, 2, ...
    run: Path                       # its private course folder (``graders.grading.rundir``)
    key: str = ""                   # the guard's key
    report: GuardReport | None = None   # the guard's signed log, read back
    graded: Path | None = None      # the graded notebook
    cells: dict = field(default_factory=dict)           # grade_id -> (score, points), as scored
    untrusted: list[str] = field(default_factory=list)  # tests during which something was tampered with
    taken: dict = field(default_factory=dict)           # untrusted test -> what the guard saw while it ran
    reasons: dict = field(default_factory=dict)         # grade_id -> why it lost points (graders.grading.reasons)
    broken: list[str] = field(default_factory=list)     # what no repair undoes: the score is withheld
    extra: list[str] = field(default_factory=list)      # the message's remarks on this attempt
    row: object | None = None       # the result, once the verdict is given
