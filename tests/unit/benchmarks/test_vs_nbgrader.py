"""benchmarks/vs_nbgrader.py: plain nbgrader against ``python -m graders autograde`` (issue 24, deliverable 4).

The smoke run (one notebook graded each way) is tests/e2e/benchmarks/test_vs_nbgrader_e2e.py. These check
the parts that decide what is reported: the full-marks check, the CPU of an orphaned grandchild, ours' fixed
cost per process.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest


@pytest.fixture(scope="module")
def bench(repo):
    spec = importlib.util.spec_from_file_location("vs_nbgrader", repo / "benchmarks" / "vs_nbgrader.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


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
