"""benchmarks/grading_cost.py runs end to end and prints every figure it promises (a smoke run).

Timings are printed, never asserted: this checks that the benchmark still works, not how fast.
"""

from __future__ import annotations

import re
import subprocess
import sys

NUMBER = r"(\d+(?:\.\d+)?)"


def test_benchmark_prints_per_notebook_and_batch_figures(repo):
    out = subprocess.run([sys.executable, str(repo / "benchmarks" / "grading_cost.py"), "--notebooks", "06_bf16",
                          "--students", "2", "--jobs", "2", "--repeats", "1"],
                         capture_output=True, text=True, cwd=repo, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    floor = re.search(rf"00_floor \(floor\)\s+{NUMBER}\s+1\.00\s+{NUMBER}", text)
    row = re.search(rf"06_bf16\s+{NUMBER}\s+{NUMBER}\s+{NUMBER}\s+(\d+)/(\d+)", text)
    assert floor and row, text
    seconds, ratio, peak_gib, score, maximum = row.groups()
    assert float(seconds) > 0 and float(peak_gib) > 0
    assert abs(float(ratio) - float(seconds) / float(floor.group(1))) < 0.01
    assert score == maximum, "the reference solution must score full marks in the benchmark"
    assert re.search(rf"all 1\s+{NUMBER}\s+{NUMBER}\s+\(target: at most 2.00", text), text
    for jobs in (1, 2):
        assert re.search(rf"2 students x 1 notebooks with --jobs {jobs}: {NUMBER} s \({NUMBER} s per submission\)",
                         text), text
    assert re.search(rf"--jobs 2 / serial = {NUMBER}", text), text
