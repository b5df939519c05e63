"""The pre-flight: before the first notebook is graded, one kernel started exactly as grading starts them runs the
course's set-up cell and reads the data; if it cannot, nothing is graded (issue 39).

A kernel that cannot import the helper package, torch or the data fails every notebook's set-up cell the same way,
and nbgrader would score each test 0: a class of silent zeros. The pre-flight kernel is made as a grading kernel is
(``rundir.make_kernel_folder`` and ``rundir.environment``: its folder, HOME, TMPDIR and variables;
``kernels.write_spec``: the same kernelspec, in a warm slot forked from its template, else bubblewrap around
ipykernel, else the venv's own; ``execute.limited``: the run's limits), then nbclient (what nbgrader's execute step
runs) runs three cells in it:

1. a probe: where the kernel imports each course package from (``interpreter.COURSE_PACKAGES``), and the helper
   package's version;
2. the released notebooks' set-up cell, as each notebook starts (one run per distinct source; all eight share it);
3. a data check: the shared Fashion-MNIST cache is ready and readable (one image of the test set loaded).

:func:`check` returns a :class:`Result` whose ``line`` names what is missing, where the grader's own Python finds it
and what to do; ``autograde`` raises :class:`KernelCannotRunCourse` with it (exit 2) before writing any row, and
``autograde --check`` prints it. No guard cell runs: the guard watches student code, and here there is none.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from graders import nbtools
from graders.errors import GraderError
from graders.grading import execute, guard_cells, interpreter, kernels, rundir, sandbox, setup_cell
from graders.limits import Limits
from graders.paths import NOTEBOOKS, REPO, notebook_names

#: how the probe cells mark the line the grader reads back
MARK = "GRADER-PREFLIGHT "

PROBE = f"""import importlib, importlib.util, json, sys
_found = {{}}
for _name in {list(interpreter.COURSE_PACKAGES)!r}:
    try:
        _spec = importlib.util.find_spec(_name)
    except Exception:
        _spec = None
    _found[_name] = None if _spec is None else (_spec.origin or list(_spec.submodule_search_locations or [""])[0])
try:
    _version = getattr(importlib.import_module("gpucourse"), "__version__", None)
except Exception:
    _version = None
print({MARK!r} + json.dumps({{"executable": sys.executable, "packages": _found, "gpucourse": _version}}))
"""

DATA_CHECK = f"""import json
from gpucourse.datacache import cache_ready, default_root
_root = default_root()
if not cache_ready(_root):
    raise RuntimeError(f"the data cache {{_root}} is not ready (or not readable) in the grading kernel")
from torchvision.datasets import FashionMNIST
FashionMNIST(_root, train=False, download=False)[0]
print({MARK!r} + json.dumps({{"data": str(_root)}}))
"""

#: run under the run's limits and environment: nbclient starts the kernel from the run's kernelspec and runs the cells
RUNNER = r"""
import sys, nbformat
from nbclient import NotebookClient
from traitlets.config import Config
source, target, timeout, cwd, sockets = sys.argv[1:6]
nb = nbformat.read(source, as_version=4)
config = Config()
config.KernelManager.transport = "ipc"
config.KernelManager.ip = sockets
client = NotebookClient(nb, config=config, kernel_name="python3", timeout=int(timeout), allow_errors=True,
                        startup_timeout=int(timeout), resources={"metadata": {"path": cwd}})
try:
    client.execute()
finally:
    nbformat.write(nb, target)
"""


class KernelCannotRunCourse(GraderError):
    """The pre-flight kernel could not run the course's set-up: nothing was graded."""

    exit_code = 2


@dataclass
class Result:
    ok: bool
    line: str                    # one line: what ran, or what is missing, where the grader finds it, what to do
    seconds: float = 0.0
    packages: dict = field(default_factory=dict)  # name -> where the kernel imports it from (None: it cannot)


def setup_sources(notebooks: list[Path]) -> list[str]:
    """The distinct set-up cell sources of ``notebooks`` (released notebooks), in order."""
    sources: list[str] = []
    for path in notebooks:
        cell = setup_cell.setup_cell(nbtools.read(path))
        if cell is not None and cell.source not in sources:
            sources.append(cell.source)
    return sources


def check(notebooks: list[Path], limits: Limits | None = None, slot=None) -> Result:
    """Start one kernel as grading does (in ``slot`` when warm) and run the set-up cells of ``notebooks`` and the data
    check in it; the :class:`Result`."""
    limits = Limits() if limits is None else limits
    sources = setup_sources(notebooks)
    if not sources:
        return Result(True, "pre-flight: no notebook with a set-up cell to try")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(PROBE)] + [nbformat.v4.new_code_cell(s) for s in sources] \
        + [nbformat.v4.new_code_cell(DATA_CHECK)]
    started = time.monotonic()
    run = Path(tempfile.mkdtemp(prefix="preflight-"))
    try:
        kernel = rundir.make_kernel_folder(run, slot.kernels if slot is not None else None)
        kernels.write_spec(run, slot.socket_path if slot is not None else None)
        env = rundir.environment(run, guard_cells.new_key(), limits)
        source, target = run / "preflight.ipynb", run / "preflight.out.ipynb"
        nbformat.write(nb, str(source))
        command = [sys.executable, "-c", RUNNER, str(source), str(target), str(limits.cell_timeout_s),
                   str(kernel / "autograded"), str(kernel / "runtime" / "kernel")]
        try:
            proc = subprocess.run(command, env=env, cwd=str(kernel / "autograded"), capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=limits.notebook_wall_s,
                                  preexec_fn=execute.limited(limits))
            stderr = proc.stderr
        except subprocess.TimeoutExpired:
            return Result(False, f"the grading kernel did not finish the course's set-up within "
                                 f"{limits.notebook_wall_s} s", time.monotonic() - started)
        ran = nbtools.read(target) if target.exists() else None
    finally:
        rundir.remove(run)
        shutil.rmtree(run, ignore_errors=True)
    return verdict(ran, stderr, sources, time.monotonic() - started)


def _marked(cell) -> dict:
    for output in cell.get("outputs", []):
        for line in str(output.get("text", "")).splitlines():
            if line.startswith(MARK):
                return json.loads(line[len(MARK):])
    return {}


def verdict(ran, stderr: str, sources: list[str], seconds: float) -> Result:
    """The :class:`Result` of an executed pre-flight notebook (None: the kernel never ran it)."""
    if ran is None or not ran.cells or not ran.cells[0].get("outputs"):
        said = [line.strip() for line in stderr.splitlines() if line.strip()]
        last = next((line for line in reversed(said) if "Error" in line or "bwrap" in line), said[-1] if said else "")
        return Result(False, f"the grading kernel did not start ({last[:300] or 'no message'}): `python -m graders "
                             "autograde --check` says what protects and runs the kernels here",
                      seconds)
    probe = _marked(ran.cells[0])
    packages = probe.get("packages", {})
    missing = [name for name in interpreter.COURSE_PACKAGES if name in packages and packages[name] is None]
    errors = [(i, setup_cell.error_of(cell)) for i, cell in enumerate(ran.cells)]
    first = next(((i, e) for i, e in errors if e), None)
    if first is None:
        where = packages.get("gpucourse") or "?"
        return Result(True, f"pre-flight: a grading kernel ran the course's set-up and read the data in {seconds:.1f} s"
                            f" (gpucourse {probe.get('gpucourse')} from {Path(where).parent}, torch from "
                            f"{Path(packages.get('torch') or '?').parent})", seconds, packages)
    index, error = first
    step = "the probe" if index == 0 else "the data check" if index == len(ran.cells) - 1 else "the set-up cell"
    expected = _expected_version(sources)
    if missing:
        line = missing_line(missing)
    elif expected and probe.get("gpucourse") not in (None, expected):
        line = (f"the grading kernel imports gpucourse {probe.get('gpucourse')} from "
                f"{Path(packages.get('gpucourse') or '?').parent}, but the notebooks need {expected}: install this "
                f"checkout's into the Python that grades ({sys.executable} -m pip install -e {REPO})")
    elif step == "the data check":
        line = (f"the grading kernel cannot read the course's data ({error}): run `python -m graders autograde` "
                "again after `source scripts/setup.sh` (it prepares the data), or set COURSE_DATA to a readable "
                "folder")
    else:
        line = f"the grading kernel could not run the course's set-up cell ({error})"
    return Result(False, line, seconds, packages)


def _expected_version(sources: list[str]) -> str | None:
    for source in sources:
        found = re.search(r'GPUCOURSE_VERSION\s*=\s*"([^"]+)"', source)
        if found:
            return found.group(1)
    return None


def missing_line(missing: list[str]) -> str:
    """What the kernel cannot import, where the grader's own Python finds each, and what to do."""
    outside = interpreter.package_paths()  # the grading interpreter, outside the sandbox
    parts, advice = [], set()
    for name in missing:
        spec = None
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            pass
        origin = getattr(spec, "origin", None) or (list(getattr(spec, "submodule_search_locations", None) or [])
                                                   or [None])[0]
        here = f"the grader's own Python imports it from {Path(origin).parent if origin else '?'}" if spec \
            else "the grader's own Python cannot import it either"
        if outside.get(name):
            here += f"; outside the sandbox a kernel's Python finds it at {outside[name][0]}"
        parts.append(f"{name} ({here})")
        if outside.get(name) and sandbox.active():
            advice.add("the sandbox does not show where it is: grade with GRADER_SANDBOX=0, and report this Python "
                       "layout")
        elif name == "gpucourse":
            advice.add(f"install the helper package into the Python that grades: {sys.executable} -m pip install "
                       f"-e {REPO}")
        else:
            advice.add(f"install the course's requirements into the Python that grades: {sys.executable} -m pip "
                       f"install -r {REPO / 'requirements.txt'}")
    return f"the grading kernel cannot import {', '.join(parts)}: " + "; ".join(sorted(advice))


def released(root: Path, names: list[str]) -> list[Path]:
    """The released notebooks of ``names`` in the course ``root``."""
    return [p for p in (Path(root) / "release" / n / f"{n}.ipynb" for n in names) if p.exists()]


def released_in_repo() -> list[Path]:
    """The student notebooks this checkout releases (``notebooks/``): what ``autograde --check`` tries."""
    return [p for p in (NOTEBOOKS / f"{n}.ipynb" for n in notebook_names()) if p.exists()]


#: GRADER_PREFLIGHT=0 skips the pre-flight (a debugging aid: the set-up step still fails each row whose set-up
#: cell raised, ``graders.grading.setup_cell``)
ENV_SWITCH = "GRADER_PREFLIGHT"


def require(notebooks: list[Path], limits: Limits, slot=None) -> Result:
    """:func:`check`, raising :class:`KernelCannotRunCourse` (exit 2) when the kernel cannot run the course."""
    if os.environ.get(ENV_SWITCH, "1") == "0":
        return Result(True, f"pre-flight: skipped ({ENV_SWITCH}=0); a notebook whose set-up cell fails is failed")
    result = check(notebooks, limits, slot)
    if not result.ok:
        raise KernelCannotRunCourse(f"{result.line}; nothing was graded")
    return result
