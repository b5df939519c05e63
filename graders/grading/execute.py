"""Step 3, execute: ``nbgrader autograde`` in the private course folder, in a process of its own under the
run's ``Limits``; when the kernel died or ran out of time, the cell that was running is
neutralised and the notebook graded again (at most ``MAX_RERUNS`` times). Part of this step: the file watch's
check after the run (``graders.grading.watch``), whose changes no repair undoes."""

from __future__ import annotations

import functools
import os
import resource
import subprocess
import sys
from pathlib import Path

from graders import course, nbtools
from graders.grading import guard_log, rundir, watch
from graders.grading.guard_cells import source_hash
from graders.grading.job import RETRY, Attempt, Job
from graders.grading.row import Row
from graders.limits import Limits

MAX_RERUNS = 2

#: CUDA reserves tens of GiB of *virtual* address space when it starts (inaccessible mappings), so on a
#: machine with an NVIDIA GPU an address-space cap would stop CUDA itself; the data-segment cap
#: (RLIMIT_DATA: private writable memory, what tensors and Python objects use) holds on every machine.
HAS_NVIDIA = Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia").exists()


def limit_resources(limits: Limits) -> None:  # in the child before exec; inherited by the kernel (and the warm worker)
    cap = int(limits.memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
    if not HAS_NVIDIA:  # a second line of defence (shared memory) where it costs nothing
        resource.setrlimit(resource.RLIMIT_AS, (2 * cap, 2 * cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()  # its own process group, so a timeout kills the kernel too


def limited(limits: Limits):
    """What a child process runs before exec (``preexec_fn``): :func:`limit_resources` with ``limits``."""
    return functools.partial(limit_resources, limits)


def run_nbgrader(root: Path, name: str, student: str, log_path: Path,
                 env: dict | None = None, limits: Limits | None = None) -> tuple[int | None, str]:
    """Run ``nbgrader autograde`` for one notebook of one student under ``limits`` (by default the documented
    defaults); return (exit code or None, log)."""
    limits = Limits() if limits is None else limits
    cmd = [sys.executable, "-m", "nbgrader", "autograde", name, "--student", student, "--force"]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env or course.venv_env(), stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=limited(limits))
        try:
            code = proc.wait(timeout=limits.notebook_wall_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            code = None
        try:  # the kernel is in the same process group: make sure nothing is left running
            os.killpg(proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
    return code, log_path.read_text(errors="replace")


GENERIC = ("Please see the", "There was an error processing", "Traceback (most recent call last)",
           "Removing failed assignment")


def failure_reason(code: int | None, log: str, limits: Limits | None = None) -> str:
    """A sentence a person understands, from nbgrader's exit and log (``limits``: the run's, named in it)."""
    limits = Limits() if limits is None else limits
    if code is None:
        return f"grading stopped after the {limits.notebook_wall_s} s limit for one notebook"
    if "DeadKernelError" in log or "Kernel died" in log:
        return ("the kernel died while running the notebook (a crash, os._exit, or memory over the "
                f"{limits.memory_gib:g} GiB limit)")
    if "Timeout waiting for execute reply" in log or "CellTimeoutError" in log:
        return (f"a cell ran past the {limits.cell_timeout_s} s limit and the kernel did not answer "
                "the interrupt")
    if "MemoryError" in log:
        return f"the notebook ran out of memory (limit {limits.memory_gib:g} GiB)"
    if "partial credit cannot be greater" in log:
        return "a test cell ended in a number larger than its points"
    for line in reversed(log.splitlines()):
        if ("[AutogradeApp | ERROR]" in line or "Error" in line) and not any(g in line for g in GENERIC):
            return "nbgrader could not grade it: " + line.split("]")[-1].strip()[:200]
    return f"nbgrader exited with status {code}"


def cell_label(cell, index: int) -> str:
    """How a person finds a cell: its grade id, else its first line."""
    gid = nbtools.grade_id(cell)
    if gid:
        return gid
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return f"the cell starting {first[:40]!r}" if first else f"empty cell {index + 1}"


def neutralise(nb, cell_hash: str | None) -> str | None:
    """Replace the cell whose source hash is ``cell_hash`` by one that raises; its label, or None."""
    if cell_hash is None:
        return None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and source_hash(cell.source) == cell_hash:
            if nbtools.is_test_cell(cell) or cell.metadata.get("grader_guard"):
                return None
            label = cell_label(cell, index)
            cell.source = ("raise RuntimeError('The autograder skipped this cell: it stopped the kernel "
                           "or ran out of time when the notebook was graded.')\n")
            return label
    return None


def timeouts(graded_nb) -> list[str]:
    """The cells nbgrader interrupted at the cell time limit."""
    found = []
    for index, cell in enumerate(graded_nb.cells):
        if cell.cell_type != "code" or cell.metadata.get("grader_guard"):
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error" and output.get("ename") in ("CellTimeoutError",
                                                                               "KeyboardInterrupt"):
                found.append(cell_label(cell, index))
                break
    return found


def execute(job: Job, attempt: Attempt):
    """Grade in the attempt's run folder; read the guard's log and check the file watch. None when graded, RETRY after
    a neutralised cell, else a failed row."""
    run = attempt.run
    env = rundir.environment(run, attempt.key, job.limits)
    if job.slot is not None:
        job.log_path.parent.mkdir(parents=True, exist_ok=True)
        code = job.slot.autograde(run / "course", job.name, job.student, job.log_path, env)
        log_text = job.log_path.read_text(errors="replace") if job.log_path.exists() else ""
    else:
        code, log_text = run_nbgrader(run / "course", job.name, job.student, job.log_path, env=env, limits=job.limits)
    attempt.graded = run / "course" / "autograded" / job.student / job.name / f"{job.name}.ipynb"
    ok = code == 0 and attempt.graded.exists()
    attempt.report = guard_log.read_log(run / "guard.log", attempt.key.encode(), job.tests, ran=ok)
    changed = watch.changes(job)  # the file watch's check, part of this step
    # what no repair undoes withholds the score; everything else is evidence for a review
    attempt.broken = attempt.report.unrepairable + [f"changed files outside its folder: {c}" for c in changed]
    job.evidence = list(dict.fromkeys(job.evidence + job.findings + attempt.report.tampering + attempt.broken))
    if ok:
        return None
    if not attempt.broken and attempt.number <= MAX_RERUNS and _skip_what_stopped_it(job, attempt, code, log_text):
        return RETRY
    reason = failure_reason(code, log_text, job.limits)
    if job.evidence:
        job.log_findings()
        reason += " (also found: " + "; ".join(job.evidence[:4]) + "; the log has every finding)"
    return Row(job.student, job.name, 0.0, job.max_score, "failed", "; ".join([reason] + job.skipped))


def _skip_what_stopped_it(job: Job, attempt: Attempt, code, log_text: str) -> bool:
    """Neutralise the student's cell that was running, else fail the test that was; False if neither."""
    last = attempt.report.last_cell
    label = neutralise(job.nb, last.get("hash")) if last else None
    if label is not None:
        job.skipped.append(f"without {label} ({failure_reason(code, log_text, job.limits)})")
        return True
    if last and last.get("test") and last["test"] not in job.poisoned:
        job.poisoned.append(last["test"])
        job.skipped.append(f"with {last['test']} failed at once, since running it stopped the grading "
                           f"({failure_reason(code, log_text, job.limits)})")
        return True
    return False
