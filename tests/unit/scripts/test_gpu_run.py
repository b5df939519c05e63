"""scripts/gpu_run.py, reviewed on CPU: without a GPU it changes nothing; its budget plan fits the run's limit and
stops what runs late; the figures it expects are the sources' RESULT lines; the samples' grading is compared
row by row with the CPU's expectations (issue 33, deliverable 5; issue 34, deliverable 3)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import nbformat
import pytest
import torch

from graders.paths import REPO, SOLUTIONS, SOURCES, notebook_names
from scripts.gpurun import figures, grading, notebook, plan
from scripts.gpurun.jobs import Job, run_jobs

SCRIPT = REPO / "scripts" / "gpu_run.py"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: the script would run for real")
def test_without_a_gpu_it_says_so_and_changes_nothing(tmp_path):
    out = tmp_path / "results.md"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--work", str(tmp_path / "w")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "no CUDA GPU" in proc.stdout and "Nothing was changed" in proc.stdout
    assert not out.exists() and not (tmp_path / "w").exists()


# ---------------------------------------------------------------------------------------------
# The budget
# ---------------------------------------------------------------------------------------------
def stages(*estimates):
    return [plan.Stage(f"s{i}", "", e) for i, e in enumerate(estimates)]


def test_each_stage_may_run_until_only_the_later_stages_estimates_are_left():
    planned = plan.plan(stages(100, 50, 150), total_s=480, reserve_s=20)
    assert [s.deadline_s for s in planned] == [460 - 50 - 150, 460 - 150, 460]
    assert [s.budget_s for s in planned] == [460 - 200, 50, 150]
    assert all(s.budget_s >= s.estimate_s for s in planned)


def test_a_plan_that_does_not_fit_gives_the_last_stages_no_time():
    planned = plan.plan(stages(300, 100, 200), total_s=480, reserve_s=20)
    assert [s.budget_s for s in planned] == [300, 100, 60]
    assert planned[-1].deadline_s == 460
    lines = plan.plan_lines(planned, 480)
    assert "MORE than the budget" in lines[0] and len(lines) == 4


def test_the_estimates_are_the_h200_runs_until_a_later_run_replaces_them():
    names = notebook_names()
    known = plan.estimates()
    assert all(plan.notebook_estimate(n, known) == plan.H200_S[n] for n in names if n in plan.H200_S)
    assert plan.notebook_estimate("99_new", known) == plan.NEW_NOTEBOOK_S
    three = names[:3]
    alone = sum(plan.notebook_estimate(n, known) for n in three)
    longest = max(plan.notebook_estimate(n, known) for n in three)
    assert longest <= plan.parallel_estimate(three, 3, known) < alone
    later = {"notebooks": [{"name": names[0], "seconds": 99.0, "error": ""},
                           {"name": names[1], "seconds": 5.0, "error": "stopped: out of time after 5 s"}],
             "stages": {"grading": {"status": "done", "seconds": 77.0}, "direct": {"status": "skipped: out of time"}},
             "tests": {"returncode": 0, "seconds": 31.0}}
    again = plan.estimates(later)
    assert again[names[0]] == 99.0 and again[names[1]] == known[names[1]]  # a stopped notebook's time is no estimate
    assert (again["grading"], again["direct"], again["cuda_tests"]) == (77.0, known["direct"], 31.0)


def test_the_dry_run_prints_the_plan_within_the_budget_and_the_figures_the_sources_print():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--dry-run", "--budget", "480", "--jobs", "16"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("budget: 480 s in all")
    ends = [float(line.split("ends by")[1].split("s:")[0]) for line in proc.stdout.splitlines() if "ends by" in line]
    assert ends and ends == sorted(ends) and ends[-1] <= 480
    assert "--jobs 16" in proc.stdout
    for item in figures.expected_from_sources(SOURCES):
        assert f"  {item.notebook}  {item.key}" in proc.stdout


def sleeper(name, seconds, tmp_path):
    return Job(name, [sys.executable, "-c", f"import time; print('{name} up', flush=True); time.sleep({seconds})"],
               tmp_path / f"{name}.log")


def test_jobs_past_their_deadline_are_stopped_and_those_not_started_skipped(tmp_path):
    quick, slow, never = sleeper("quick", 0, tmp_path), sleeper("slow", 600, tmp_path), sleeper("never", 0, tmp_path)
    ended = []
    # one at a time: "quick" ends, "slow" holds the slot past the deadline, "never" gets none
    run_jobs([quick, slow, never], 1, time.monotonic() + 3, ended.append, tick_s=0.1)
    assert [j.name for j in ended] == ["quick", "slow", "never"]
    assert (quick.outcome, quick.returncode) == ("finished", 0)
    assert slow.outcome == "stopped: out of time" and slow._proc.poll() is not None
    assert "slow up" in slow.text()  # what it printed before it was stopped is kept
    assert never.outcome == "skipped: out of time" and not never.log.exists()


def test_a_run_stopped_from_outside_stops_what_it_started(tmp_path):
    quick, slow = sleeper("quick", 0, tmp_path), sleeper("slow", 600, tmp_path)
    ended = []

    def interrupt(job):
        ended.append(job.name)
        if job is quick:
            raise KeyboardInterrupt  # as the SIGTERM handler's SystemExit would, while "slow" still runs

    with pytest.raises(KeyboardInterrupt):
        run_jobs([quick, slow], 2, time.monotonic() + 600, interrupt, tick_s=0.1)
    assert slow.outcome == "stopped with the run" and slow._proc.poll() is not None
    assert ended == ["quick", "slow"]  # what it had done is recorded too


# ---------------------------------------------------------------------------------------------
# The figures: the RESULT lines of sources/
# ---------------------------------------------------------------------------------------------
def test_the_expected_figures_are_the_print_lines_of_the_sources_not_their_prose(tmp_path):
    (tmp_path / "01_a.py").write_text(
        '# %% [markdown]\n# Print `RESULT prose_key = 1` to publish a figure.\n'
        '# %%\nprint(f"RESULT h2d_gbps = {x:.1f} GB/s")\n'
        'for name in ("fp32", "amp"):\n    print(f"RESULT eps_{name} = {eps[name]:.0f} examples/s")\n'
        'print(f"RESULT h2d_gbps = {y:.1f} GB/s")  # the same key again: one figure\n')
    (tmp_path / "02_b.py").write_text('print("nothing to publish")\n')
    (tmp_path / "manifest.toml").write_text("")
    found = figures.expected_from_sources(tmp_path)
    assert [(e.notebook, e.key) for e in found] == [("01_a", "h2d_gbps"), ("01_a", "eps_{name}")]
    assert found[1].matches("eps_fp32") and found[1].matches("eps_amp") and not found[1].matches("h2d_gbps")
    assert found[0].matches("h2d_gbps") and not found[0].matches("h2d_gbps_pinned")


def test_every_result_line_a_solution_notebook_prints_is_expected():
    """Read two ways: the sources' code lines, and the code cells of the notebooks built from them."""
    expected = {(e.notebook, e.key) for e in figures.expected_from_sources(SOURCES)}
    in_solutions = set()
    for name in notebook_names():
        nb = nbformat.read(str(SOLUTIONS / f"{name}.ipynb"), as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        in_solutions |= {(name, key) for key in figures.SOURCE_RESULT.findall(code)}
    assert expected == in_solutions
    assert {nb for nb, _ in expected}, "no notebook prints a RESULT line"


def test_a_result_line_wins_over_the_readable_text_and_a_stopped_notebook_keeps_what_it_printed(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output(
        "stream", name="stdout", text="Device: cuda\nCPU float32    350,086     1.00x\nGPU float32    443,114   1.27x\n"
        "RESULT eps_cpu = 999 examples/s\nRESULT eps_cpu = 1000 examples/s\n")]),
        nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("stream", name="stderr", text="RESULT x = 1\n")])]
    nbformat.write(nb, str(tmp_path / "08_throughput.ipynb"))
    record = notebook.record("08_throughput", tmp_path, "stopped: out of time", 41.0)
    assert record["error"] == "stopped: out of time after 41 s" and record["device"] == "cuda"
    assert record["figures"] == {"eps_cpu": ("1000 examples/s", "RESULT line"),
                                 "eps_gpu_fp32": ("443,114 examples/s", "printed text")}
    # the worker's own summary, written as its kernel died under the stop, does not hide why it stopped
    (tmp_path / "08_throughput.json").write_text('{"seconds": 30, "error": "DeadKernelError: Kernel died"}')
    assert notebook.record("08_throughput", tmp_path, "stopped: out of time", 41.0)["error"].startswith("stopped")
    assert notebook.record("08_throughput", tmp_path, "finished", 41.0)["error"] == "DeadKernelError: Kernel died"


def test_the_notebooks_run_in_full_mode_without_the_graders_switches(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("COURSE_QUICK", "1")
    env = notebook.environment()
    assert env["COURSE_QUICK"] == "0" and "NBGRADER_EXECUTION" not in env


# ---------------------------------------------------------------------------------------------
# The grading, row by row
# ---------------------------------------------------------------------------------------------
def expected_rows(names):
    """A Row per sample row, exactly as the CPU grader must give it."""
    from graders.grading.row import Row
    from graders.nbtools import read, test_points
    from graders.qa.sample_check import expectations

    rows = []
    for exp in expectations(names):
        points = test_points(read(SOLUTIONS / f"{exp.notebook}.ipynb"))
        cells = {gid: (0.0 if gid in exp.lost else p, p) for gid, p in points.items()}
        rows.append(Row(student_id=exp.student, notebook=exp.notebook, score=exp.score,
                        max_score=sum(points.values()), status="graded", cells=cells))
    return rows


def test_a_row_that_differs_from_the_cpus_is_named_in_the_verdict(tmp_path):
    from graders.grading.graded_folder import write_csv

    names = notebook_names()[:3]
    rows = expected_rows(names)
    write_csv(rows, tmp_path)
    same, source = grading.graded_rows(tmp_path)
    table = grading.compare_rows(same, names)
    assert source == "grades.csv" and {t["verdict"] for t in table} == {"as expected"}
    assert grading.verdict(table) == f"GPU grading: {len(table)}/{len(table)} sample rows as the CPU grader expects"

    odd = next(r for r in rows if r.student_id == "mistakes" and r.notebook == names[1])
    gid = next(g for g, (score, _) in odd.cells.items() if score == 0)
    odd.cells[gid] = (odd.cells[gid][1], odd.cells[gid][1])  # a test the mistake must fail passes on the GPU
    odd.score += odd.cells[gid][1]
    write_csv(rows, tmp_path)
    table = grading.compare_rows(grading.graded_rows(tmp_path)[0], names)
    wrong = [t for t in table if t["verdict"] != "as expected"]
    assert [(t["student"], t["notebook"]) for t in wrong] == [("mistakes", names[1])]
    assert gid in wrong[0]["verdict"] and wrong[0]["got"] == f"{odd.score:g}/{odd.max_score:g}"
    line = grading.verdict(table)
    assert f"{len(table) - 1}/{len(table)}" in line and f"NOT as expected: mistakes/{names[1]}" in line
    assert any(f"mistakes | `{names[1]}`" in x for x in grading.table_lines(table))


def test_a_stopped_grading_is_read_from_its_progress_lines_and_the_rest_count_as_not_graded(tmp_path):
    names = notebook_names()[:2]
    rows = expected_rows(names)
    log = "data: kernels read Fashion-MNIST\n" + "".join(
        f"[{i}/6] {r.student_id:<24} {r.notebook:<16} {r.score:g}/{r.max_score:g} graded\n"
        for i, r in enumerate(rows[:4], 1)) + f"[5/6] mistakes   {names[1]}  -/10 review\n"
    got, source = grading.graded_rows(tmp_path, log)  # no grades.csv: the run stopped before it was written
    assert source == "autograde's progress lines" and len(got) == 5
    table = grading.compare_rows(got, names)
    by = {(t["student"], t["notebook"]): t for t in table}
    assert all(by[(r.student_id, r.notebook)]["verdict"] == "as expected" for r in rows[:4])
    assert by[("mistakes", names[1])]["got"] == "withheld/10"
    assert "flagged for review" in by[("mistakes", names[1])]["verdict"]
    assert "1 not graded (the run stopped before them)" in grading.verdict(table)


def test_the_device_the_grading_kernels_reported_is_counted(tmp_path):
    for student, text in (("a", "Device: cuda\n"), ("b", "Device: cpu\n"), ("c", "no set-up cell ran")):
        folder = tmp_path / "course" / "autograded" / student / "01_devices"
        folder.mkdir(parents=True)
        (folder / "01_devices.ipynb").write_text(json.dumps({"cells": [{"outputs": [{"text": text}]}]}))
    assert grading.devices_seen(tmp_path.rglob("autograded/*/*/*.ipynb")) == {"cuda": 1, "cpu": 1, "not reported": 1}
