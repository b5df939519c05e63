"""Shared test set-up: quick mode, the venv's tools on PATH, a HOME and TMPDIR per pytest-xdist worker, and the
tiers: a test's folder (tests/unit, tests/judge, tests/e2e) is its tier, and each tier's time is printed."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# Every notebook a test executes runs its quick configuration, as under the autograder.
os.environ["COURSE_QUICK"] = "1"
# nbgrader runs `alembic` and jupyter finds kernels through PATH: the venv's bin comes first.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("MPLBACKEND", "Agg")

# Workers side by side (pytest-xdist, `-n 3`: scripts/test.sh, .ci/run): each has its own HOME (the data cache,
# matplotlib's and jupyter's files) and TMPDIR (tempfile's folders, torch's compile cache), kept between runs below
# the run's HOME so that a worker's data cache is filled once; pytest-xdist gives each its own tmp_path folders
# (popen-gwN, where Slurm's state goes too). Ports are free ones, asked of the OS per test.
WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if WORKER:
    _own = Path.home() / ".cache" / "course-tests" / WORKER
    for _var, _path in (("HOME", _own / "home"), ("TMPDIR", _own / "tmp")):
        _path.mkdir(parents=True, exist_ok=True)
        os.environ[_var] = str(_path)
    tempfile.tempdir = None  # read TMPDIR again
    # Each worker's torch (its own, its kernels', its notebooks') gets its share of the cores, as autograde gives
    # parallel kernels theirs (graders/grading/cores.py): workers with a thread per core each would spin
    # OpenMP threads against each other.
    _workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if _workers > 1:
        os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or _workers) // _workers)))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session", autouse=True)
def shared_caches():
    """The machine's shared caches (``graders.machine.caches()``), made as ``autograde`` makes them before its first
    run folder: a test that makes a run folder or a warm slot itself finds them, in a fresh HOME (CI's, each
    worker's) as in a used one."""
    from graders import machine

    machine.caches()


# ---- the tiers: a test's folder is its tier ----------------------------------------------------------
# tests/unit/<package>/: no notebook run, no nbgrader, no server; tests/judge/: the in-process tier (every test
# cell in one kernel per notebook); tests/e2e/<package>/: nbgrader, whole notebooks, servers, Slurm. The folder
# applies the tier's markers, so `-m "not slow"` selects the unit tier and `-m judge` the in-process one; a test
# that marks itself with another tier's marker, or sits outside the three folders, stops the run.
TIERS = {"unit": ("unit (no notebook run)", ()),
         "judge": ("in-process (every test cell in one kernel per notebook)", ("judge", "slow")),
         "e2e": ("end-to-end (nbgrader, whole notebooks, servers)", ("slow",))}
FOREIGN = {"unit": {"slow", "judge"}, "judge": set(), "e2e": {"judge"}}   # markers that say another tier
_tier_time: dict[str, list[float]] = {}


def tier_of(path: Path) -> str | None:
    try:
        parts = path.resolve().relative_to(REPO / "tests").parts
    except ValueError:   # not below tests/
        return None
    return parts[0] if len(parts) > 1 and parts[0] in TIERS else None


_misplaced: list[str] = []


def pytest_itemcollected(item):
    """The tier's markers, as each test is collected: before any hook that selects by them (``-m``)."""
    tier = tier_of(item.path)
    own = {m.name for m in item.iter_markers()}
    if tier is None:
        _misplaced.append(f"{item.nodeid}: outside tests/unit, tests/judge and tests/e2e")
        return
    if own & FOREIGN[tier]:
        _misplaced.append(f"{item.nodeid}: marked {sorted(own & FOREIGN[tier])} but in tests/{tier}/")
        return
    for name in TIERS[tier][1]:
        item.add_marker(name)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    if _misplaced:
        raise pytest.UsageError("a test's folder is its tier (tests/conftest.py):\n  " + "\n  ".join(_misplaced))
    items.sort(key=run_order)  # stable: the collection's order within each group


#: the judge-tier file handed out first: it starts the judge's one run (its other files then read it)
JUDGE_FIRST = "test_judge.py"


def run_order(item) -> tuple[int, int]:
    """The order of the files handed to the workers (scripts/test.sh keeps it: --no-loadscope-reorder): the long
    ones first, so that a long file's waits (servers, Slurm, a fresh HOME's first runs) overlap other work. First the
    judge's run, made by the first judge-tier file (tests/judge/conftest.py) in one worker while the others take the
    end-to-end tier, tests/e2e/grading/ first (its files grade whole classes); then the unit tier's many short files,
    which fill in while the last long one ends; last the judge tier's other files, which read the judge's run when it
    is made (a worker that took one earlier would wait for it doing nothing)."""
    parts = item.path.resolve().relative_to(REPO / "tests").parts  # tier_of has placed every item by now
    if parts[0] == "judge":
        return (0, 0) if item.path.name == JUDGE_FIRST else (3, 0)
    return ["judge", "e2e", "unit"].index(parts[0]), 0 if parts[:2] == ("e2e", "grading") else 1


# ---- test time by tier, printed at the end of every run (the figures the CI log shows) ---------------
def pytest_runtest_logreport(report):
    # from the test's path: under pytest-xdist the reports come to a process that collected nothing
    tier = tier_of(REPO / report.nodeid.split("::")[0]) or "unit"
    counts = _tier_time.setdefault(tier, [0, 0.0])
    counts[1] += report.duration
    if report.when == "call":
        counts[0] += 1


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_sep("-", "test time by tier")
    for tier, (title, _markers) in TIERS.items():
        count, seconds = _tier_time.get(tier, [0, 0.0])
        terminalreporter.write_line(f"{title}: {count} tests, {seconds:.0f} s")
