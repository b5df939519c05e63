"""A simulated Colab runtime for the first code cell of the student notebooks (the tests in
tests/unit/gpucourse/test_colab_bootstrap.py and tests/e2e/gpucourse/test_colab_bootstrap_e2e.py).

The first code cell of every student notebook, run as on a fresh or a used Colab runtime.

Each scenario runs in a fresh interpreter with a stand-in ``google.colab`` module imported first
(as Colab's kernel does), ``COLAB_RELEASE_TAG`` set, and ``subprocess.run`` replaced by a
recording stand-in for pip: pip calls are recorded and "install" by lifting an import gate,
every other command runs for real. The gate makes chosen packages look missing, or makes
``gpucourse`` look like an older version, until the stand-in pip installs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import gpucourse
from graders import nbtools
from graders.paths import notebook_names

HARNESS = textwrap.dedent(r'''
    import importlib.util, json, os, re, subprocess, sys, time
    T0 = time.perf_counter()
    conf = json.loads(open(sys.argv[1]).read())
    work = conf["work"]

    # A stand-in google.colab, imported before anything else as Colab's kernel does.
    os.makedirs(os.path.join(work, "fakecolab", "google", "colab"), exist_ok=True)
    for rel in ("google/__init__.py", "google/colab/__init__.py"):
        open(os.path.join(work, "fakecolab", rel), "w").write("# stand-in for tests\n")
    sys.path.insert(0, os.path.join(work, "fakecolab"))
    import google.colab  # noqa: F401
    os.environ["COLAB_RELEASE_TAG"] = "simulated"

    # Another gpucourse version (a copy of this one, numbered 0.0.1), for the "another version" scenarios.
    import shutil
    stub = os.path.join(work, "oldpkg", "gpucourse")
    if not os.path.exists(stub):
        shutil.copytree(conf["package"], stub, ignore=shutil.ignore_patterns("__pycache__"))
        init = os.path.join(stub, "__init__.py")
        text = open(init).read()
        open(init, "w").write(re.sub(r'__version__ = "[^"]*"', '__version__ = "0.0.1"', text))

    INSTALLED = set()

    class Gate:
        """Makes conf["missing"] look absent (and gpucourse look old) until pip installs it."""
        def find_spec(self, name, path=None, target=None):
            top = name.split(".")[0]
            if top in INSTALLED:
                return None
            if top == "gpucourse" and conf.get("old_gpucourse"):
                if name == "gpucourse":
                    return importlib.util.spec_from_file_location(
                        name, os.path.join(stub, "__init__.py"), submodule_search_locations=[stub])
                return None  # submodules: found on the stub's __path__
            if top in conf["missing"]:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Gate())

    CALLS = []
    real_run = subprocess.run

    def fake_run(cmd, *args, **kwargs):
        argv = [str(a) for a in cmd] if isinstance(cmd, (list, tuple)) else str(cmd).split()
        if "pip" not in argv[:3] and not any(a.endswith("pip") for a in argv[:1]):
            return real_run(cmd, *args, **kwargs)
        CALLS.append(argv)
        if conf["offline"]:
            err = ("ERROR: Could not find a version that satisfies the requirement (network unreachable: "
                   "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution)")
            return subprocess.CompletedProcess(argv, 1, "", err)
        if conf.get("pip_error"):  # online, but pip (or git inside it) fails as given
            return subprocess.CompletedProcess(argv, 1, "", conf["pip_error"])
        reqs = [a for a in argv[argv.index("install") + 1:] if not a.startswith("-")]
        for req in reqs:
            if conf.get("branch_moved_on") and req.startswith("gpucourse"):
                continue  # the source now holds another version: the old one stays
            INSTALLED.add(re.split(r"[ @=<>\[;]", req, maxsplit=1)[0].replace("-", "_"))
        return subprocess.CompletedProcess(argv, 0, "", "")

    subprocess.run = fake_run

    import contextlib, io
    results = []
    for item in conf["cells"]:  # each notebook is a fresh Colab session
        INSTALLED.clear()
        os.environ.pop("GPUCOURSE_TRIED", None)
        for mod in [m for m in sys.modules if m.split(".")[0] in set(conf["missing"]) | {"gpucourse"}]:
            if conf["missing"] or conf.get("old_gpucourse"):
                del sys.modules[mod]
        for run in range(conf["runs"]):
            CALLS.clear()
            out = io.StringIO()
            ns = {"__name__": "__main__"}
            start = time.perf_counter()
            error = None
            with contextlib.redirect_stdout(out):
                try:
                    exec(compile(item["source"], item["name"] + ":setup", "exec"), ns)
                except SystemExit as exc:
                    error = "SystemExit: " + str(exc)
                except BaseException as exc:
                    error = f"{type(exc).__name__}: {exc}"
            mod = sys.modules.get("gpucourse")
            results.append({
                "name": item["name"], "run": run, "calls": [list(c) for c in CALLS],
                "stdout": out.getvalue(), "error": error, "seconds": time.perf_counter() - start,
                "since_start": time.perf_counter() - T0,
                "expected_version": ns.get("GPUCOURSE_VERSION"), "source": ns.get("GPUCOURSE_SOURCE"),
                "loaded_version": getattr(mod, "__version__", None),
                "device": str(ns.get("DEVICE")), "quick": ns.get("QUICK"), "has_torch": "torch" in ns,
            })
    print(json.dumps(results))
''')


def first_code_cells(folder: Path) -> list[dict]:
    cells = []
    for name in notebook_names():
        path = folder / f"{name}.ipynb"
        if path.exists():
            nb = nbtools.read(path)
            source = next(c.source for c in nb.cells if c.cell_type == "code")
            cells.append({"name": name, "source": source})
    return cells


def simulate(tmp_path: Path, cells: list[dict], *, missing=(), old=False, offline=False, runs=2,
             branch_moved_on=False, pip_error=None) -> list[dict]:
    work = tmp_path / "colab"
    data = work / "data" / "FashionMNIST" / "raw"
    data.mkdir(parents=True, exist_ok=True)
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        (data / name).touch()  # "cached": the set-up cell must not fetch anything
    conf = {"work": str(work), "cells": cells, "missing": list(missing), "old_gpucourse": old,
            "offline": offline, "runs": runs, "branch_moved_on": branch_moved_on, "pip_error": pip_error,
            "package": str(Path(gpucourse.__file__).parent)}
    (work / "conf.json").write_text(json.dumps(conf))
    (work / "harness.py").write_text(HARNESS)
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "NBGRADER_EXECUTION", "COURSE_QUICK", "MPLBACKEND", "GPUCOURSE_TRIED")}
    env["COURSE_DATA"] = str(work / "data")
    proc = subprocess.run([sys.executable, str(work / "harness.py"), str(work / "conf.json")], cwd=work,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
