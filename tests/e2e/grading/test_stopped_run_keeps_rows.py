"""A run that stops keeps every row it graded, and its rerun grades only the rest (issue 33, deliverable 4).

Real ``python -m graders autograde`` on two sample students, one notebook, stopped with SIGTERM (what a
scheduler's time limit sends to the whole job) as soon as the first row is in grades.csv; then run again.
"""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
import time

from graders.paths import REPO, SAMPLES

NB = "01_devices"
STUDENTS = ("correct", "mistakes")


def _rows(out) -> dict[tuple[str, str], dict]:
    if not (out / "grades.csv").exists():
        return {}
    with open(out / "grades.csv", newline="") as f:
        return {(r["student_id"], r["notebook"]): r for r in csv.DictReader(f)}


def _detail(out) -> set[tuple[str, str]]:
    with open(out / "grades_detail.csv", newline="") as f:
        return {(r["student_id"], r["notebook"]) for r in csv.DictReader(f)}


def test_a_stopped_run_keeps_its_rows_and_the_rerun_grades_only_the_rest(tmp_path):
    out = tmp_path / "graded"
    command = [sys.executable, "-m", "graders", "autograde", str(SAMPLES), "--out", str(out), "--notebooks", NB,
               "--students", *STUDENTS, "--jobs", "1"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with open(tmp_path / "first.log", "w") as log:
        run = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
        while run.poll() is None and not _rows(out):
            time.sleep(0.2)
        assert run.poll() is None, "the run ended before it could be stopped:\n" + (tmp_path / "first.log").read_text()
        os.killpg(run.pid, signal.SIGTERM)
        run.wait()
    kept = _rows(out)
    assert len(kept) == 1, kept  # one notebook at a time: the second was running
    assert set(kept) <= _detail(out)  # every row kept has its test cells
    assert all(r["status"] == "graded" for r in kept.values()), kept
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]

    again = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
    said = again.stdout + again.stderr
    assert again.returncode == 0, said
    rows = _rows(out)
    assert set(rows) == {(s, NB) for s in STUDENTS}
    assert {k: rows[k] for k in kept} == kept  # the rows the stopped run finished are those it wrote
    for student, _ in kept:
        assert any(student in line and "kept" in line for line in said.splitlines()), said
    graded_now = [line for line in said.splitlines() if re.match(r"\[\d+/\d+\] .* " + NB, line)]
    assert len(graded_now) == 1 and "[1/1]" in graded_now[0], said
