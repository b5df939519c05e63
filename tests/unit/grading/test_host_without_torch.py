"""The grader's own process finds the data folder, prepares the caches and starts the sandbox without importing
torch (about 2 s of every ``python -m graders autograde``): only the kernels need it."""

from __future__ import annotations

import os
import subprocess
import sys

from gpucourse.datacache import RAW_FILES
from graders.paths import REPO

PROBE = """
import sys
from graders import machine
from graders.grading import sandbox
machine.prepare(verbose=True)
sandbox.readonly_paths()
print("torch" in sys.modules)
"""


def test_a_ready_cache_is_used_without_torch(tmp_path):
    raw = tmp_path / "data" / "FashionMNIST" / "raw"
    raw.mkdir(parents=True)
    for pair in RAW_FILES.values():
        for name in pair:
            (raw / name).write_bytes(b"")  # present is ready: the kernels load them
    env = dict(os.environ, COURSE_DATA=str(tmp_path / "data"), MPLCONFIGDIR=str(tmp_path / "mpl"),
               GPUCOURSE_SYSTEM_DATA=str(tmp_path / "no-system-files"), PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False", "the grader's process imported torch"
