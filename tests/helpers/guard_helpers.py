"""A stand-in for the grading kernel, for the guard's unit tests (tests/unit/grading/test_guard_unit.py).

The guard (graders/grading/guard.py) installs an audit hook that no code can remove, so it must never run
in pytest's own process. :func:`grade` builds the guard cells exactly as the grader does
(``guarding.guard_config``, ``guard_cells.guard_sources``, ``guard_cells.insert_guards``) and runs the
cells in a child ``python`` (this file's ``__main__``) that behaves like IPython where the guard
looks: one namespace for every cell (``get_ipython().user_ns``), each cell compiled under an
absolute file name that does not exist and whose lines are in ``linecache`` (so the guard tells
trusted cells from student cells by their source), and the ``pre_run_cell`` event before each cell.
No Jupyter, no nbgrader, no torch: a run costs a fraction of a second.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

# The modules the child snapshots instead of torch's (importing torch would cost seconds a run).
LIGHT_PRELOAD = ["copy", "math", "random", "json", "statistics"]


def _without_torch(names: list[str]) -> list[str]:
    return [n for n in names if n.split(".")[0] not in ("torch", "numpy", "gpucourse")]


def notebook(*cells: tuple[str, str, str]):
    """A notebook from ``(kind, id, source)``: kind ``course`` (a locked course cell), ``answer``
    (the student's solution cell, grade id ``id``) or ``test`` (an autograded test cell, 1 point)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    for kind, cid, source in cells:
        cell = nbformat.v4.new_code_cell(textwrap.dedent(source).strip() + "\n")
        cell.id = cid
        meta = {"answer": {"solution": True, "grade": False, "locked": False, "grade_id": cid},
                "test": {"solution": False, "grade": True, "locked": True, "grade_id": cid, "points": 1},
                "course": {"solution": False, "grade": False, "locked": True, "grade_id": cid}}[kind]
        cell.metadata["nbgrader"] = dict(meta, schema_version=3)
        nb.cells.append(cell)
    return nb


@dataclass
class Run:
    """What one run of the stand-in kernel left: its log, key, cells and output."""
    log: Path
    key: bytes
    tests: list[str]
    cells: list[dict]              # the cells run, in order: {"label", "source"}
    results: dict = field(default_factory=dict)   # label -> None (ran) or "ErrorType: message"
    stdout: str = ""
    returncode: int = 0
    config: dict = field(default_factory=dict)
    folders: dict = field(default_factory=dict)   # see guard_config

    def report(self, **kwargs):
        from graders.grading import guard_log
        return guard_log.read_log(self.log, self.key, self.tests, **kwargs)

    def records(self) -> list[dict]:
        return [json.loads(line.partition(" ")[2]) for line in self.log.read_text().splitlines()]


def released(nb, **stubs: str):
    """The released notebook of ``nb``: each answer cell holds ``stubs[id]`` (the contract's names)."""
    release = copy.deepcopy(nb)
    for cell in release.cells:
        if cell.metadata["nbgrader"].get("solution"):
            cell.source = textwrap.dedent(stubs.get(cell.id, "# YOUR CODE HERE")).strip() + "\n"
    return release


def guard_config(tmp: Path, nb, poisoned: list[str] | None = None, release=None,
                 sandboxed: bool = False) -> tuple[dict, dict]:
    """The grader's own configuration for ``nb`` (guarding.guard_config; ``release``: the released
    notebook, by default ``nb`` itself), with the standard modules in place of torch; and its folders.
    ``sandboxed``: the configuration for a kernel in the OS sandbox (no file rules). The stand-in kernel
    never runs in one, so a sandboxed run shows what the guard alone does."""
    from unittest import mock

    from graders import machine
    from graders.grading import guarding
    from graders.intake import student_files as intake

    run = tmp / "run"
    folders = {"run": run, "cwd": run / "course" / "autograded" / "student" / "nb", "outside": tmp / "outside",
               "root": tmp / "course-root", "out": tmp / "graded", "data": tmp / "data", "mpl": tmp / "mpl"}
    for path in folders.values():
        path.mkdir(parents=True, exist_ok=True)
    for sub in ("tmp", "home", "mpl"):  # the kernel's own folders, linked from the run as rundir.make does
        (run / "k" / sub).mkdir(parents=True, exist_ok=True)
        if sub != "mpl" and not (run / sub).exists():
            (run / sub).symlink_to(Path("k") / sub)
    # the machine's shared caches, here folders of this test (gpucourse.data would import torch)
    with mock.patch.object(machine, "data_dir", return_value=folders["data"]), \
            mock.patch.object(machine, "mpl_dir", return_value=folders["mpl"]):
        config = guarding.guard_config(run, "student", "nb", nb if release is None else release, nb,
                                         folders["out"], intake.Intake(notebook="nb"), folders["root"],
                                         list(poisoned or []), sandboxed=sandboxed)
    config["preload"] = _without_torch(config["preload"]) + LIGHT_PRELOAD
    config["protected_modules"] = _without_torch(config["protected_modules"])
    return config, folders


def grade(tmp: Path, nb, *, poisoned: list[str] | None = None, key: str = "k" * 64, timeout: float = 120,
          env: dict | None = None, release=None, sandboxed: bool = False, **overrides) -> Run:
    """Run ``nb`` with the guard cells in place, as the grader would, in a child ``python``; ``overrides``
    replace entries of the guard's configuration, ``env`` adds to the child's environment; ``sandboxed``:
    the guard of a kernel in the OS sandbox (see :func:`guard_config`)."""
    from graders.grading import guard_cells

    config, folders = guard_config(tmp, nb, poisoned, release, sandboxed)
    config.update(overrides)
    tests = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if c.metadata["nbgrader"].get("grade")]
    guarded = guard_cells.insert_guards(copy.deepcopy(nb), guard_cells.guard_sources(key[:12], config, tests))
    cells = [{"label": c.metadata.get("nbgrader", {}).get("grade_id") or c.id, "source": c.source}
             for c in guarded.cells]
    log, results = folders["run"] / "guard.log", folders["cwd"] / "results.txt"
    spec = folders["run"] / "cells.json"
    spec.write_text(json.dumps({"cells": cells, "results": str(results)}))
    child_env = {**os.environ, "GRADER_GUARD_KEY": key, "GRADER_GUARD_LOG": str(log), "PYTHONDONTWRITEBYTECODE": "1",
                 "TMPDIR": str(folders["run"] / "tmp"), "HOME": str(folders["run"] / "home"),
                 "COURSE_DATA": str(folders["data"]), "MPLCONFIGDIR": str(folders["mpl"]), **(env or {})}
    proc = subprocess.run([sys.executable, __file__, str(spec)], cwd=folders["cwd"], env=child_env, capture_output=True,
                          text=True, timeout=timeout)
    run = Run(log, key.encode(), tests, cells, stdout=proc.stdout + proc.stderr, returncode=proc.returncode,
              config=config, folders=folders)
    if results.exists():
        for line in results.read_text().splitlines():
            label, error = ast.literal_eval(line)
            run.results[label] = error
    return run


def ran_clean(run: Run, *labels: str) -> None:
    """Each cell ``labels`` ran, without an error."""
    for label in labels:
        assert label in run.results, f"{label} did not run:\n{run.stdout[-3000:]}"
        assert run.results[label] is None, f"{label}: {run.results[label]}"


# ---------------------------------------------------------------------------------------------
# The child: a kernel as the guard sees one
# ---------------------------------------------------------------------------------------------
class _Events:
    def __init__(self):
        self.callbacks = {}

    def register(self, name, fn):
        self.callbacks.setdefault(name, []).append(fn)


class _Shell:
    def __init__(self, user_ns):
        self.user_ns = user_ns
        self.events = _Events()


class _Info:
    def __init__(self, raw_cell):
        self.raw_cell = raw_cell


def _kernel(spec_path: str) -> None:
    import builtins
    import linecache

    # a kernel started as `python -m ipykernel_launcher` has its working folder (the notebook's) first on
    # sys.path, not the folder of a script: this file's folder is no library the guard should know
    sys.path[0] = os.getcwd()

    spec = json.loads(Path(spec_path).read_text())
    # opened before the guard starts: the results need no file access the guard would judge
    out = os.open(spec["results"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    user_ns = {"__name__": "__main__", "__builtins__": builtins}
    shell = _Shell(user_ns)
    user_ns["get_ipython"] = lambda: shell
    folder = f"/tmp/fake-ipykernel-{os.getpid()}"  # never created, as IPython's cell files are not files
    for index, cell in enumerate(spec["cells"]):
        for callback in shell.events.callbacks.get("pre_run_cell", []):
            try:  # IPython's EventManager.trigger reports a failing callback and runs the cell
                callback(_Info(cell["source"]))
            except Exception as exc:
                print(f"Error in callback {callback} (for pre_run_cell): {exc!r}", file=sys.__stderr__)
        filename = f"{folder}/{index}.py"
        lines = cell["source"].splitlines(keepends=True)
        linecache.cache[filename] = (len(cell["source"]), None, lines, filename)
        error = None
        try:
            exec(compile(cell["source"], filename, "exec"), user_ns)
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
        sys.stdout.flush()
        # repr, not json: a cell may have replaced json.dumps (the guard puts it back only before a test)
        os.write(out, (repr((cell["label"], error)) + "\n").encode())
    sys.stdout.flush()
    sys.stderr.flush()


if __name__ == "__main__":
    _kernel(sys.argv[1])
