"""benchmarks/vs_nbgrader.py: plain nbgrader against ``python -m graders autograde`` (issue 24, deliverable 4).

The smoke run grades one notebook once each way and checks that the ratio and the class projection are
printed with numbers, and that both sides gave the reference full marks. Timings are printed, never
asserted. The parts that decide what is reported: tests/unit/benchmarks/test_vs_nbgrader.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

NUMBER = r"(\d+(?:\.\d+)?)"


DURATION = rf"{NUMBER} (?:s|min|h)"


def test_smoke_run_prints_ratio_and_projection_with_full_marks_on_both_sides(repo, tmp_path):
    figures = tmp_path / "figures.json"
    out = subprocess.run([sys.executable, str(repo / "benchmarks" / "vs_nbgrader.py"), "--notebooks", "06_bf16",
                          "--repeats", "1", "--json", str(figures)],
                         capture_output=True, text=True, cwd=repo, timeout=1800)
    text = out.stdout
    ratio = re.search(rf"^ratio ours/plain: {NUMBER}x \(target <= 0\.60\)$", text, re.M)
    assert ratio and float(ratio.group(1)) > 0, text + out.stderr[-3000:]
    assert "class projection: 300 students x 8 notebooks = 2400 notebooks" in text, text
    for row in ("serial", "--jobs 16 on 16 cores", "Slurm 10 nodes x 16 cores"):
        assert re.search(rf"^  {re.escape(row)}\s+{DURATION}\s+{DURATION}$", text, re.M), f"{row}:\n{text}"
    for side in ("plain", "ours"):  # load, wall, CPU, CPU per notebook, rusage, /proc, orphans, marks
        assert re.search(rf"^1\s+{side}(?:\s+{NUMBER}){{6}}\s+\d+\s+full$", text, re.M), text
    assert "both sides gave the reference full marks" in text, text
    assert out.returncode == 0, out.stderr[-3000:]
    data = json.loads(figures.read_text())
    for run in data["runs"]:
        score, maximum = run["scores"]["06_bf16"][:2]
        assert maximum > 0 and score == maximum, run
        assert run["wall_s"] > 0 and run["cpu_s"] > 0, run
    plain, ours = (data["sides"][side]["wall_s"] for side in ("plain", "ours"))
    assert abs(float(ratio.group(1)) - ours / plain) < 0.01
