"""Grading one notebook of one student: hand it to ``nbgrader autograde`` under the limits of
``graders.limits`` in a process of its own, and turn what happened into a :class:`Row`.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from . import course, intake, limits, nbtools
from .paths import COURSE_ID

FIELDS = ["student_id", "notebook", "score", "max_score", "status", "message"]


@dataclass
class Row:
    student_id: str
    notebook: str
    score: float
    max_score: float
    status: str  # "graded" or "failed"
    message: str = ""
    cells: dict = field(default_factory=dict)  # grade_id -> (score, max_score)

    def csv(self) -> dict:
        data = asdict(self)
        data.pop("cells")
        data["score"] = f"{self.score:g}"
        data["max_score"] = f"{self.max_score:g}"
        return data


def _limit_resources() -> None:  # runs in the child before exec; inherited by the kernel
    cap = int(limits.MEMORY_GIB * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    os.setsid()  # its own process group, so a timeout kills the kernel too


def run_nbgrader(root: Path, name: str, student: str, log_path: Path) -> tuple[int | None, str]:
    """Run ``nbgrader autograde`` for one notebook of one student; return (exit code or None, log)."""
    cmd = [sys.executable, "-m", "nbgrader", "autograde", name, "--student", student, "--force"]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=course.venv_env(), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, preexec_fn=_limit_resources)
        try:
            code = proc.wait(timeout=limits.NOTEBOOK_WALL_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            code = None
    return code, log_path.read_text(errors="replace")


def failure_reason(code: int | None, log: str) -> str:
    """A sentence a person understands, from nbgrader's exit and log."""
    if code is None:
        return f"grading stopped after the {limits.NOTEBOOK_WALL_S} s limit for one notebook"
    if "DeadKernelError" in log or "Kernel died" in log:
        return ("the kernel died while running the notebook (a crash, os._exit, or memory over the "
                f"{limits.MEMORY_GIB:g} GiB limit); run it top to bottom yourself to find the cell")
    if "MemoryError" in log:
        return f"the notebook ran out of memory (limit {limits.MEMORY_GIB:g} GiB)"
    if "partial credit cannot be greater" in log:
        return "a test cell ended in a number larger than its points"
    for line in reversed(log.splitlines()):
        if "[AutogradeApp | ERROR]" in line or "Error" in line:
            return "nbgrader could not grade it: " + line.split("]")[-1].strip()[:200]
    return f"nbgrader exited with status {code}"


def _gradebook_row(root: Path, student: str, name: str) -> Row:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        sub = gb.find_submission_notebook(name, name, student)
        cells = {g.name: (float(g.score or 0), float(g.max_score)) for g in sub.grades if g.max_score}
        pending = [g.name for g in sub.grades if g.max_score and g.auto_score is None and g.manual_score is None]
        row = Row(student, name, float(sub.score or 0), float(sub.max_score), "graded", cells=cells)
    if pending:
        row.message = "not graded automatically: " + ", ".join(pending)
    return row


def max_scores(root: Path, names: list[str]) -> dict[str, float]:
    return {n: sum(nbtools.test_points(nbtools.read(root / "release" / n / f"{n}.ipynb")).values()) for n in names}


def grade_one(root: Path, out: Path, student: str, item: intake.Intake, max_score: float) -> Row:
    name = item.notebook
    if item.problem:
        return Row(student, name, 0.0, max_score, "failed", item.problem)
    dest = root / "submitted" / student / name / f"{name}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(item.nb, str(dest))
    code, log = run_nbgrader(root, name, student, out / "logs" / student / f"{name}.log")
    graded = root / "autograded" / student / name / f"{name}.ipynb"
    if code != 0 or not graded.exists():
        return Row(student, name, 0.0, max_score, "failed", failure_reason(code, log))
    row = _gradebook_row(root, student, name)
    row.message = "; ".join(filter(None, item.notes + [row.message]))
    return row
