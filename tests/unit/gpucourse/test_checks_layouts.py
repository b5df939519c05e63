"""The self-checks tell library code from the student's on any Python layout: torch imported from another prefix's
site-packages (a venv over a GPU image's Python, tests/helpers/layouts.py) is library code, so a
NotImplementedError raised inside torch reads as an error, not as an unfinished exercise ([TODO])."""

from __future__ import annotations

import subprocess

from tests.helpers.layouts import venv_over

PROBE = """
import os, torch, gpucourse.checks as checks
print(os.path.realpath(torch.__file__).startswith(checks.LIBRARY_DIRS))
"""


def test_torch_from_another_prefix_is_library_code(tmp_path):
    python = venv_over(tmp_path / "venv")
    out = subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True"
