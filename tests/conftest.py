"""Shared test set-up: quick mode, the venv's tools on PATH, and a data cache shared by the run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# Every notebook a test executes runs its quick configuration, as under the autograder.
os.environ["COURSE_QUICK"] = "1"
# nbgrader runs `alembic` and jupyter finds kernels through PATH: the venv's bin comes first.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


# ---- test time by tier, printed at the end of every run (the figures the CI log shows) ---------------
TIERS = {"judge": "in-process (every test cell in one kernel per notebook)",
         "slow": "end-to-end (nbgrader, whole notebooks, servers)"}
_tier_of: dict[str, str] = {}
_tier_time: dict[str, list[float]] = {}


def pytest_collection_modifyitems(items):
    for item in items:
        marks = {m.name for m in item.iter_markers()}
        _tier_of[item.nodeid] = next((tier for tier in TIERS if tier in marks), "unit")


def pytest_runtest_logreport(report):
    tier = _tier_of.get(report.nodeid, "unit")
    counts = _tier_time.setdefault(tier, [0, 0.0])
    counts[1] += report.duration
    if report.when == "call":
        counts[0] += 1


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_sep("-", "test time by tier")
    for tier in ("unit", *TIERS):
        count, seconds = _tier_time.get(tier, [0, 0.0])
        terminalreporter.write_line(f"{TIERS.get(tier, 'unit (no notebook run)')}: {count} tests, {seconds:.0f} s")
