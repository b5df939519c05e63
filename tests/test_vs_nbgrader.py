"""benchmarks/vs_nbgrader.py: plain nbgrader against ``python -m graders autograde`` (issue 24, deliverable 4).

The smoke run grades one notebook once each way and checks that the ratio and the class projection are
printed with numbers, and that both sides gave the reference full marks. Timings are printed, never
asserted. The unit tests check the parts that decide what is reported: the full-marks check, the CPU of an
orphaned grandchild, ours' fixed cost per process.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import textwrap

import pytest

NUMBER = r"(\d+(?:\.\d+)?)"
DURATION = rf"{NUMBER} (?:s|min|h)"


@pytest.fixture(scope="module")
def bench(repo):
    spec = importlib.util.spec_from_file_location("vs_nbgrader", repo / "benchmarks" / "vs_nbgrader.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
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


def test_full_marks_check_reports_a_shortfall_a_failure_and_a_missing_grade(bench):
    run = bench.Run("ours", 1, 0.0, scores={"a": [10.0, 10.0, "graded"], "b": [9.0, 10.0, "graded"],
                                            "c": [0.0, 10.0, "failed"], "d": [None, 10.0, "review"], "e": None})
    bench.check_marks(run, ["a", "b", "c", "d", "e"])
    assert [line.split(":")[0] for line in run.problems] == ["ours b", "ours c", "ours d", "ours e"]
    plain = bench.Run("plain", 1, 0.0, scores={"a": [3.0, 3.0], "b": [0.0, 0.0]})
    bench.check_marks(plain, ["a", "b"])
    assert plain.problems == ["plain b: 0.0/0.0, not full marks"]  # no test cell scored: nothing was graded


def test_ours_scores_read_from_grades_csv(bench, tmp_path):
    (tmp_path / "grades.csv").write_text("student_id,notebook,score,max_score,status,message\n"
                                         "reference,01_devices,12,12,graded,\n"
                                         "reference,02_transfers,,8,review,flagged\n"
                                         "someone,01_devices,0,12,failed,x\n")
    scores = bench.ours_scores(tmp_path, ["01_devices", "02_transfers", "03_async_timing"])
    assert scores == {"01_devices": [12.0, 12.0, "graded"], "02_transfers": [None, 8.0, "review"],
                      "03_async_timing": None}


def test_ours_fixed_cost_is_its_wall_less_the_steady_pace(bench):
    # progress lines at 30, 40, 50 s of a 55 s run: 10 s per notebook, so 55 - 3 x 10 = 25 s fixed
    assert bench.ours_start(55.0, [30.0, 40.0, 50.0], 3) == pytest.approx(25.0)
    assert bench.ours_start(55.0, [30.0], 1) is None
    assert bench.ours_start(55.0, [30.0, 40.0], 3) is None  # a notebook printed no line: no steady pace


def test_cpu_of_an_orphaned_grandchild_is_counted(repo, tmp_path):
    # The grandchild burns 0.5 CPU-seconds of its own after its parent has exited; measured() must count them.
    burner = "import time\nwhile time.process_time() < 0.5:\n    pass\n"
    parent = f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {burner!r}])"
    script = textwrap.dedent(f"""
        import importlib.util, json, sys
        from pathlib import Path
        spec = importlib.util.spec_from_file_location("b", {str(repo / 'benchmarks' / 'vs_nbgrader.py')!r})
        b = sys.modules["b"] = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
        assert b.become_subreaper()
        m = b.measured([sys.executable, "-c", {parent!r}], Path("."), None, Path({str(tmp_path / 'log')!r}))
        print(json.dumps([m.rc, m.rusage_s, m.sampled_s, m.cpu_s, m.orphans]))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=repo, timeout=300)
    assert out.returncode == 0, out.stderr
    rc, rusage, sampled, cpu, orphans = json.loads(out.stdout.strip().splitlines()[-1])
    assert rc == 0 and orphans == 1
    assert rusage >= 0.5  # reaped here as an orphan, so counted
    assert sampled >= 0.3  # seen in /proc while it ran (its last 50 ms may be missed)
    assert cpu == max(rusage, sampled)


def test_cpu_that_rusage_loses_is_sampled_from_proc(repo, tmp_path):
    # A parent that ignores SIGCHLD has its children reaped by the kernel, their times dropped (as a sandbox's
    # PID namespace killed as a whole drops its processes'): RUSAGE_CHILDREN never sees the grandchild's CPU.
    burner = "import time\nwhile time.process_time() < 0.5:\n    pass\n"
    parent = textwrap.dedent(f"""
        import os, signal, subprocess, sys, time
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        pid = subprocess.Popen([sys.executable, "-c", {burner!r}]).pid
        while os.path.exists(f"/proc/{{pid}}"):
            time.sleep(0.05)
    """)
    script = textwrap.dedent(f"""
        import importlib.util, json, sys
        from pathlib import Path
        spec = importlib.util.spec_from_file_location("b", {str(repo / 'benchmarks' / 'vs_nbgrader.py')!r})
        b = sys.modules["b"] = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
        m = b.measured([sys.executable, "-c", {parent!r}], Path("."), None, Path({str(tmp_path / 'log')!r}))
        print(json.dumps([m.rc, m.rusage_s, m.sampled_s, m.cpu_s]))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=repo, timeout=300)
    assert out.returncode == 0, out.stderr
    rc, rusage, sampled, cpu = json.loads(out.stdout.strip().splitlines()[-1])
    assert rc == 0 and rusage < 0.4 <= sampled == cpu
