"""What the end-to-end grading tests share: one grading of the sample submissions for the whole run. Under
pytest-xdist the first worker to ask makes it and the others wait for it and read it (pytest-xdist's documented
way to make a session fixture once: a lock file in the run's shared temporary folder)."""

from __future__ import annotations

import fcntl
import os
import pickle
from pathlib import Path
from unittest import mock

import pytest

from graders.grading import warm
from graders.paths import SAMPLES

#: the notebook the end-to-end tests of the grading machinery grade (Slurm, shards, pre-flight, formgrader, warm
#: against cold): among the cheapest to grade since issue 40's properties. The correct sample's cells, as CI's
#: kernels timed them on its 2 loaded cores: 04_autocast 16 s, 03 16 s, 06 17 s, 02 34 s, 01_devices 48 s, 05 52 s,
#: 07 76 s, 08 108 s. Every notebook is still graded end to end by test_grading.py, test_alternatives.py and CI's
#: main job.
QUICK_NOTEBOOK = "04_autocast"
SAMPLES_GRADED = [QUICK_NOTEBOOK, "06_bf16"]


@pytest.fixture(scope="session")
def samples_graded(tmp_path_factory, worker_id) -> tuple[Path, list]:
    """samples/submissions (correct, untouched, mistakes) graded once, warm, for SAMPLES_GRADED: the serial result a
    Slurm array must equal (test_slurm_e2e.py), and the warm side of warm against cold (test_sandbox_e2e.py).
    Read-only to the tests that use it: another worker may be reading it too."""
    from graders.grading.autograde import autograde

    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the folder above every worker's own
    out, saved = shared / "samples-graded", shared / "samples-graded.pickle"
    with open(shared / "samples-graded.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when the grading fails
        if not saved.exists():
            with mock.patch.dict(os.environ, {warm.ENV_SWITCH: "1"}):
                rows = autograde(SAMPLES, out, names=SAMPLES_GRADED, progress=False)
            saved.write_bytes(pickle.dumps(rows))
    return out, pickle.loads(saved.read_bytes())
