"""``submit-slurm`` on a live one-node Slurm cluster equals a serial ``autograde``; failed shards are
named, the others kept, and a rerun of only those completes the result.

The cluster (``graders.qa.slurm_cluster``) is started in a temp folder on free ports and stopped at the
end, whatever happens. It has 2 cpus and every task asks for 1, so at most 2 tasks run at once.
"""

from __future__ import annotations

import csv
import os

import pytest

from graders.__main__ import main
from graders.grading import slurm
from graders.paths import SAMPLES
from graders.qa.slurm_cluster import local_cluster, missing_binaries
from tests.e2e.grading.conftest import QUICK_NOTEBOOK

NAME = QUICK_NOTEBOOK  # graded serially by conftest.py as well


FIELDS = ("student_id", "notebook", "score", "status")


WAIT = "900"  # seconds; three notebooks take about a minute on an idle 2-core machine


def _rows(path):
    with open(path, newline="") as f:
        return [tuple(r[k] for k in FIELDS) for r in csv.DictReader(f)]


def _submit(work, *extra):
    return main(["submit-slurm", "--work", str(work), "--wait", "--timeout", WAIT, *extra])


needs_slurm = pytest.mark.skipif(bool(missing_binaries()), reason=(
    f"Slurm binaries not found ({', '.join(missing_binaries())}): `apt-get install slurm-wlm`"))


@pytest.fixture(scope="module")
def cluster():
    with local_cluster(cpus=2) as running:
        yield running


@pytest.fixture(scope="module")
def serial(samples_graded):
    """The sample submissions graded in this process (tests/e2e/grading/conftest.py), this notebook's rows."""
    out, _ = samples_graded
    return [row for row in _rows(out / "grades.csv") if row[1] == NAME]


@pytest.mark.slurm
@needs_slurm
def test_array_equals_serial(cluster, serial, tmp_path):
    work = tmp_path / "work"
    assert _submit(work, str(SAMPLES), "--shards", "3", "--notebooks", NAME) == 0, cluster.logs()
    assert _rows(work / "graded" / "grades.csv") == serial
    assert len(serial) == 3
    with open(work / "graded" / "grades_lms.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 3


@pytest.mark.slurm
@needs_slurm
def test_failed_shard_is_named_others_kept_rerun_completes(cluster, serial, tmp_path, capsys):
    work = tmp_path / "work"
    (work / "shards").mkdir(parents=True)
    (work / "shards" / "3").write_text("a file where shard 3's folder must go: its task fails")
    assert _submit(work, str(SAMPLES), "--shards", "3", "--notebooks", NAME) == 1
    out = capsys.readouterr().out
    assert "shard 3/3 FAILED (exit 1), Slurm: FAILED" in out and "mistakes, untouched" in out
    assert str(work / "logs" / "shard-3.log") in out
    assert _rows(work / "graded" / "grades.csv") == [r for r in serial if r[0] == "correct"]
    assert not (work / "graded" / "grades_lms.csv").exists()
    kept = os.stat(work / "logs" / "shard-2.log").st_mtime_ns

    (work / "shards" / "3").unlink()
    assert _submit(work, "--only-failed") == 0
    assert slurm.jobs_history(slurm.Plan.load(work))[-1]["tasks"] == [3]
    assert os.stat(work / "logs" / "shard-2.log").st_mtime_ns == kept  # shard 2 was not graded again
    assert _rows(work / "graded" / "grades.csv") == serial
    assert (work / "graded" / "grades_lms.csv").exists()
