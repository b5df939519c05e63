"""benchmarks/grading_profile.py runs and prints every part of one notebook's grading (no timing bounds)."""

from __future__ import annotations

import re
import subprocess
import sys

from graders.paths import REPO


def test_the_profile_prints_each_part_with_a_figure():
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "grading_profile.py"), "--students", "1"],
                         capture_output=True, text=True, cwd=REPO, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout
    assert re.search(r"01_devices, 1 students, (warm|cold); rows: 10/10 graded", text), text
    for part in ("step execute.execute", "nbgrader: start, pre-processing, kernel start", "cells: guard",
                 "cells: notebook", "cells: tests", "nbgrader: after the last cell", "whole run (autograde())"):
        line = next((line for line in text.splitlines() if line.startswith(part)), None)
        assert line is not None, f"{part!r} missing from:\n{text}"
        assert re.search(r"\s\d+\.\d\d\s+\d+$", line), line
