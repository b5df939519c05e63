"""Step 2, guard: the in-kernel guard's cells (``graders.grading.guard``) added to the submission, with
the configuration of this run: what the tests rely on, and, for a kernel without the OS sandbox, where it may
write and what it may not read (``graders.grading.guard_os``)."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from graders import machine
from graders.grading import cell_names, guard_cells, interpreter, rundir, sandbox
from graders.grading import job as job_mod
from graders.grading.job import Attempt, Job
from graders.limits import Limits
from graders.paths import REPO


def guard_config(run: Path, student: str, name: str, release, source, out: Path, item, root: Path,
                 poisoned: list[str], sandboxed: bool | None = None, limits: Limits | None = None) -> dict:
    """The guard's configuration; ``sandboxed`` (by default: whether kernels run in the OS sandbox here) leaves
    out the file rules (``cwd``, ``write_roots``, ``read_deny``), which only a kernel without the sandbox needs;
    ``limits`` (by default the documented defaults) caps what one cell may print."""
    limits = Limits() if limits is None else limits
    tests = job_mod.test_sources(source)
    sources = job_mod.trusted_sources(release, source)
    sandboxed = sandbox.active() if sandboxed is None else sandboxed
    config = {
        "sandboxed": sandboxed,
        # the helper package where the kernel imports it from: this checkout's, or another clone's an editable
        # install's import finder maps it to (``interpreter.package_paths``)
        "library_roots": [str(REPO / "gpucourse"), *(interpreter.package_paths().get("gpucourse") or [])],
        "protected_modules": guard_cells.PROTECTED_MODULES + cell_names.imported_modules(sources),
        "protected_prefixes": guard_cells.PROTECTED_PREFIXES,
        "preload": guard_cells.PRELOAD + cell_names.imported_modules(tests),
        "trusted_sources": sorted(guard_cells.source_hash(s) for s in sources),
        "graded": cell_names.graded_functions(release),
        "namespace_modules": cell_names.namespace_modules(sources, tests),
        "test_names": cell_names.test_names(tests),
        "max_output_chars": limits.max_output_chars,
        "poisoned": poisoned,
    }
    if not sandboxed:
        config.update(file_rules(run, student, name, out, item, root))
    return config


def file_rules(run: Path, student: str, name: str, out: Path, item, root: Path) -> dict:
    """Where a kernel without the OS sandbox may write, and what it may not read (``guard_os.py``)."""
    read_deny = [str(REPO / "solutions"), str(REPO / ".git"), str(REPO / "graders"), str(REPO / "samples"),
                 str(Path(out).resolve()), str(Path(root).resolve()), str(run)]
    if item.folder is not None:
        read_deny.append(str(Path(item.folder).resolve().parent))
    return {
        "cwd": str(run / "course" / "autograded" / student / name),
        # the kernel's own HOME, TMPDIR and matplotlib config (rundir.environment), as in the sandbox; not its log
        "write_roots": [str(rundir.kernel_dir(run) / sub) for sub in ("tmp", "home", "mpl")]
                       + [str(machine.data_dir()), str(machine.mpl_dir())],
        "read_deny": read_deny,
    }


def add(job: Job, attempt: Attempt) -> None:
    """The guarded submission in the attempt's ``submitted/`` (with the hand-in's ``timestamp.txt``), under a fresh
    key for the guard's log."""
    run = attempt.run
    attempt.key = guard_cells.new_key()
    config = guard_config(run, job.student, job.name, job.release, job.source, job.out, job.item, job.root,
                          job.poisoned, limits=job.limits)
    guards = guard_cells.guard_sources(attempt.key[:12], config, job.tests)
    dest = run / "course" / "submitted" / job.student / job.name / f"{job.name}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(guard_cells.insert_guards(copy.deepcopy(job.nb), guards), str(dest))
    job.item.copy_timestamp(dest.parent)  # nbgrader records it as the submission's time
    with open(job.log_path, "a") as log:
        log.write(f"=== attempt {attempt.number}: {run}\n")
