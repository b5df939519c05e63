"""``submit-slurm`` without a cluster: the array spec, the scripts, the report of killed and failed shards, and
the dry run. On a live one-node cluster: tests/e2e/grading/test_slurm_e2e.py."""

from __future__ import annotations

import json

from graders.__main__ import main
from graders.grading import slurm
from graders.paths import SAMPLES

NAME = "01_devices"  # one of the fastest notebooks to grade (docs/scaling.md)


# --- without a cluster: the scripts and the report ---------------------------------------------

def _plan(tmp_path, shards=3):
    return slurm.Plan(submissions=str(SAMPLES), work=str(tmp_path / "work"), shards=shards, notebooks=[NAME])


def test_array_spec():
    assert slurm.array_spec([1, 2, 3, 5]) == "1-3,5"
    assert slurm.array_spec([4]) == "4"
    assert slurm.array_spec([3, 1, 2], max_running=2) == "1-3%2"


def test_scripts_grade_each_shard_and_merge_only_what_ended_well(tmp_path):
    plan = _plan(tmp_path, shards=20)
    task = slurm.shard_script(plan)
    assert "--shard $i/20" in task  # the count of the plan, not of this (possibly partial) array
    assert f"--out {plan.path('shards')}/$i" in task and f"--notebooks {NAME}" in task
    assert task.index("-m graders autograde") < task.index("shard-$i.exit.tmp")  # exit file last
    merge = slurm.merge_script(plan)
    assert "seq 1 20" in merge and "-m graders merge" in merge and "-m graders export" in merge
    assert merge.index("= 20 ]") < merge.index("-m graders export")  # no LMS file from a partial class


def test_report_names_a_killed_and_a_failed_shard(tmp_path):
    plan = _plan(tmp_path)
    slurm.prepare(plan, [1, 2, 3])
    plan.path("jobs.json").write_text(json.dumps([{"array": "7", "tasks": [1, 2, 3], "merge": "8"}]))
    plan.path("status", "shard-1.exit").write_text("0\n")
    plan.path("status", "shard-2.exit").write_text("1\n")  # shard 3 left no exit file: it was killed
    plan.path("status", "merge.exit").write_text("0\n")
    plan.path("status", "merged.txt").write_text("1\n")
    states = slurm.shard_states(plan, still_queued=set())
    assert [s.state for s in states] == ["ok", "failed", "killed"]
    text, complete = slurm.report(plan, states)
    assert not complete
    assert "shard 2/3 FAILED (exit 1)" in text and "correct" in text  # correct hashes to shard 2 of 3
    assert "shard 3/3 KILLED" in text and "mistakes, untouched" in text
    assert str(plan.path("logs", "shard-3.log")) in text and "--only-failed" in text
    assert slurm.failed_shards(states) == [2, 3]


def test_dry_run_then_a_rerun_keeps_the_split_and_takes_new_resources(tmp_path, capsys):
    work = tmp_path / "work"
    assert main(["submit-slurm", str(SAMPLES), "--work", str(work), "--shards", "3", "--notebooks", NAME,
                 "--dry-run"]) == 0
    assert "--array=1-3" in capsys.readouterr().out
    assert main(["submit-slurm", "--work", str(work), "--only", "2", "--mem", "4G", "--dry-run"]) == 0
    assert "--array=2 " in capsys.readouterr().out
    assert "#SBATCH --mem=4G" in (work / "jobs" / "shard.sh").read_text()
    assert slurm.Plan.load(work).shards == 3
    assert main(["submit-slurm", "--work", str(work), "--only", "2", "--shards", "5", "--dry-run"]) == 2
    assert "differs" in capsys.readouterr().out


# --- on a live cluster -------------------------------------------------------------------------


