"""What the end-to-end grading tests share: one grading of the sample submissions, made once per process (in one
pytest process, or in each pytest-xdist worker that runs a file using it)."""

from __future__ import annotations

import os
from pathlib import Path
from unittest import mock

import pytest

from graders.grading import warm
from graders.paths import SAMPLES

SAMPLES_GRADED = ["01_devices", "05_gradscaler"]


@pytest.fixture(scope="session")
def samples_graded(tmp_path_factory) -> tuple[Path, list]:
    """samples/submissions (correct, untouched, mistakes) graded once, warm, for SAMPLES_GRADED: the serial result a
    Slurm array must equal (test_slurm_e2e.py), and the warm side of warm against cold (test_sandbox_e2e.py)."""
    from graders.grading.autograde import autograde

    out = tmp_path_factory.mktemp("samples-graded")
    with mock.patch.dict(os.environ, {warm.ENV_SWITCH: "1"}):
        rows = autograde(SAMPLES, out, names=SAMPLES_GRADED, progress=False)
    return out, rows
