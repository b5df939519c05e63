"""The first code cell of every student notebook, run as on a fresh or a used Colab runtime.

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

import pytest

import gpucourse
from graders import authoring, nbtools
from graders.paths import NOTEBOOKS, SOLUTIONS, notebook_names

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


def requirements(call: list[str]) -> list[str]:
    return [a for a in call[call.index("install") + 1:] if not a.startswith("-")]


@pytest.fixture(scope="module")
def cells() -> list[dict]:
    found = first_code_cells(NOTEBOOKS)
    assert found, "no student notebooks"
    return found


def test_setup_cells_are_current_and_shared():
    """Every solution's set-up cell is today's setup_cell(); the student copy carries the same cell."""
    for name in notebook_names():
        solution = nbtools.read(SOLUTIONS / f"{name}.ipynb")
        index = next(i for i, c in enumerate(solution.cells) if c.cell_type == "code")
        assert solution.cells[index].id == "setup", f"{name}: the first code cell must be the set-up cell"
        fresh = authoring.setup_cell(authoring.setup_extras(solution.cells[index].source))
        assert solution.cells[index].source == fresh.source, f"{name}: run python -m graders build"
        student = NOTEBOOKS / f"{name}.ipynb"
        if student.exists():
            first = next(c for c in nbtools.read(student).cells if c.cell_type == "code")
            assert first.source == solution.cells[index].source, f"{name}: rebuild notebooks/"
            assert nbtools.nbgrader_meta(first).get("locked"), f"{name}: the set-up cell must be read-only"


def test_fresh_runtime_installs_only_what_is_missing_and_is_idempotent(tmp_path, cells):
    results = simulate(tmp_path, cells, missing=["gpucourse", "tqdm"], runs=2)
    config = authoring.course_config()
    for first, second in zip(results[::2], results[1::2]):
        name = first["name"]
        assert first["error"] is None and second["error"] is None, (name, first["error"], second["error"])
        installed = [r for call in first["calls"] for r in requirements(call)]
        package = "gpucourse @ git+https://github.com/" + config["repo"] + "@"
        assert any(r.startswith(package) for r in installed), installed
        assert "tqdm" in installed, installed
        assert not any(r.split("=")[0].strip().startswith("torch") for r in installed), f"{name}: torch installed"
        assert set(installed) <= {"tqdm", f"gpucourse @ {first['source']}"}, f"{name}: installed more than missing"
        ref = config["package_ref"] or config["branch"]
        assert first["source"] == f"git+https://github.com/{config['repo']}@{ref}"
        # pinned: the notebook names the helper's version, and that version is the one loaded
        assert first["expected_version"] == gpucourse.__version__ == first["loaded_version"], name
        assert second["calls"] == [], f"{name}: a second run must install nothing, got {second['calls']}"
        for run in (first, second):
            assert run["has_torch"] and run["device"] == "cpu" and run["quick"] is False
            assert "Device: cpu" in run["stdout"] and "torch" in run["stdout"]
            assert "T4 GPU" in run["stdout"], "on Colab without a GPU the report must advise a T4 runtime"
            assert "Data: Fashion-MNIST is cached" in run["stdout"]


def test_other_gpucourse_version_is_replaced_alone(tmp_path, cells):
    results = simulate(tmp_path, cells[:2], old=True, runs=2)
    for first, second in zip(results[::2], results[1::2]):
        assert first["error"] is None, first["error"]
        assert len(first["calls"]) == 1, first["calls"]
        call = first["calls"][0]
        assert requirements(call) == [f"gpucourse @ {first['source']}"]
        assert "--force-reinstall" in call and "--no-deps" in call, "reinstall that one package, nothing else"
        assert first["loaded_version"] == first["expected_version"] == gpucourse.__version__
        assert second["calls"] == []


def test_source_with_another_version_is_tried_once_then_reported(tmp_path, cells):
    """An old copy of a notebook, after the course moved on: one install, a clear warning, no loop."""
    results = simulate(tmp_path, cells[:1], old=True, branch_moved_on=True, runs=2)
    first, second = results
    assert len(first["calls"]) == 1 and second["calls"] == [], "install once per session, not at every run"
    for run in results:
        assert run["error"] is None, run["error"]
        assert run["loaded_version"] == "0.0.1"
        assert f"this notebook was written for gpucourse {gpucourse.__version__}" in run["stdout"]


def test_offline_runtime_gets_a_clear_message(tmp_path, cells):
    results = simulate(tmp_path, cells[:1], missing=["gpucourse"], offline=True, runs=1)
    error = results[0]["error"]
    assert error and error.startswith("SystemExit: Could not install the helper package gpucourse"), error
    assert "This runtime is offline" in error and "run this cell again" in error and "name resolution" in error
    assert "does not exist" not in error
    # the helper is there but a library is missing: the same kind of message, from gpucourse.bootstrap
    results = simulate(tmp_path, cells[:1], missing=["tqdm"], offline=True, runs=1)
    error = results[0]["error"]
    assert error and error.startswith("SystemExit: Could not install tqdm. This runtime is offline"), error
    assert "name resolution" in error


#: What pip prints, online, when the configured repository or version is not there (git's own words).
NOT_FOUND_ERRORS = {
    "missing or private repository": (
        "  Running command git clone --filter=blob:none --quiet https://github.com/someone/gone /tmp/pip-req\n"
        "  fatal: could not read Username for 'https://github.com': No such device or address\n"
        "  error: subprocess-exited-with-error\n"),
    "missing tag": (
        "  Running command git checkout -q v9.9.9\n"
        "  error: pathspec 'v9.9.9' did not match any file(s) known to git\n"
        "  error: subprocess-exited-with-error\n"),
    "missing ref on the remote": (
        "  fatal: couldn't find remote ref refs/tags/v9.9.9\n"
        "ERROR: Command errored out with exit status 128\n"),
}


@pytest.mark.parametrize("case", sorted(NOT_FOUND_ERRORS))
def test_missing_repository_or_version_is_not_called_offline(tmp_path, cells, case):
    results = simulate(tmp_path, cells[:1], missing=["gpucourse"], pip_error=NOT_FOUND_ERRORS[case], runs=1)
    error = results[0]["error"]
    assert error and error.startswith("SystemExit: Could not install the helper package gpucourse"), error
    assert "repository or version does not exist" in error and "start page" in error, error
    assert "offline" not in error and "online" not in error, error


def test_pip_failures_are_classified_like_the_setup_cell_does():
    from gpucourse import bootstrap

    assert bootstrap.pip_failure("fatal: unable to access 'https://github.com/x/y/': Could not resolve host: "
                                 "github.com") == "offline"
    for text in NOT_FOUND_ERRORS.values():
        assert bootstrap.pip_failure(text) == "not found"
    assert bootstrap.pip_failure("ERROR: No matching distribution found for torchvision==9.9") == "not found"
    assert bootstrap.pip_failure("ERROR: disk full") == "other"
    source = authoring.setup_source()
    for marker in bootstrap.OFFLINE + bootstrap.NOT_FOUND:  # the cell carries the same lists, generated
        assert repr(marker) in source, marker


def test_the_helper_package_is_pinned_to_its_release_tag():
    """The set-up cell installs a tag, not the tip of a branch: a notebook gets the gpucourse it was written for."""
    config = authoring.course_config()
    assert config["package_ref"] and config["package_ref"] != config["branch"], config
    assert config["package_ref"] == f"v{gpucourse.__version__}", "tag each release v<version> and pin it here"
    assert authoring.package_source().endswith(f"@{config['package_ref']}")


def test_nothing_missing_installs_nothing_even_offline(tmp_path, cells):
    """Offline on purpose: with everything present no network is needed (no timing asserted: CI may be busy)."""
    distinct = list({c["source"]: c for c in cells}.values())
    for cell in distinct:
        results = simulate(tmp_path, [cell] + cells, offline=True, runs=1)
        for run in results:
            assert run["error"] is None and run["calls"] == [], (run["name"], run["calls"], run["error"])
            assert run["has_torch"] and "Device: cpu" in run["stdout"]


def test_install_command_never_replaces_torch(monkeypatch):
    from packaging.requirements import Requirement

    from gpucourse import bootstrap

    cmd = bootstrap.install_command(["torchvision", "tqdm"])
    torch_pins = [a for a in cmd if a.startswith("torch==")]
    import importlib.metadata
    assert torch_pins == [f"torch=={importlib.metadata.version('torch')}"], \
        "a missing torchvision is pinned to the installed torch"
    assert bootstrap.install_command(["tqdm"])[-1] == "tqdm"
    monkeypatch.setattr(bootstrap, "has_module", lambda name: name != "numpy")
    assert bootstrap.missing_requirements() == ["numpy"]
    # what the set-up cell asks pip for is a valid requirement naming the package and the configured source
    req = Requirement(f"gpucourse @ {authoring.package_source()}")
    assert req.name == "gpucourse" and req.url.startswith("git+https://github.com/")


def test_version_mismatch_is_reported(capsys):
    from gpucourse import bootstrap

    assert bootstrap.check_version(gpucourse.__version__) is True
    assert bootstrap.check_version("0.0.0-other") is False
    assert "written for gpucourse 0.0.0-other" in capsys.readouterr().out


def test_helper_version_matches_the_package_metadata():
    """pip installs what pyproject.toml says; the set-up cell compares with gpucourse.__version__."""
    import re as _re

    pyproject = (SOLUTIONS.parent / "pyproject.toml").read_text()
    assert _re.search(r'^version\s*=\s*"([^"]+)"', pyproject, _re.M).group(1) == gpucourse.__version__
