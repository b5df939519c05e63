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
