"""--jobs and --shard give the same results as one serial run."""

from __future__ import annotations

import csv
import shutil

import pytest

from graders import nbtools
from graders.__main__ import main
from graders.authoring.samples import reference_answers, submission, with_mistakes
from graders.grading.autograde import autograde, in_shard
from graders.mistakes import for_notebook
from tests.e2e.grading.conftest import QUICK_NOTEBOOK

NAME = QUICK_NOTEBOOK


def _read(path):
    # grades_detail.csv's reason may quote a value the tests drew at random ("... (got 1.31)"): the scores must agree
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k != "reason"} for r in csv.DictReader(f)]


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    root = tmp_path_factory.mktemp("subs")
    mistakes = for_notebook(NAME)
    cases = {"ann": submission(NAME, reference_answers(NAME)), "bob": submission(NAME),
             "cat": with_mistakes(NAME, mistakes[:1]), "dan": with_mistakes(NAME, mistakes[3:4])}
    for student, nb in cases.items():
        nbtools.write(nb, root / student / f"{NAME}.ipynb")
    return root


@pytest.fixture(scope="module")
def serial(submissions, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    autograde(submissions, out, names=[NAME], progress=False)
    return out


def test_parallel_equals_serial(submissions, serial, tmp_path):
    autograde(submissions, tmp_path, names=[NAME], jobs=2, progress=False)
    assert _read(tmp_path / "grades.csv") == _read(serial / "grades.csv")
    assert _read(tmp_path / "grades_detail.csv") == _read(serial / "grades_detail.csv")
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{tmp_path / 'course' / 'gradebook.db'}", course_id="gpu-mixed-precision") as gb:
        scores = {s.student.id: s.score for s in gb.find_assignment(NAME).submissions}
    assert scores == {r["student_id"]: float(r["score"]) for r in _read(serial / "grades.csv")}
    assert sorted(p.name for p in (tmp_path / "course" / "autograded").iterdir()) == ["ann", "bob", "cat", "dan"]


def test_shards_partition_and_merge(submissions, serial, tmp_path):
    students = ["ann", "bob", "cat", "dan"]
    owners = [[i for i in (1, 2, 3) if in_shard(s, (i, 3))] for s in students]
    assert all(len(o) == 1 for o in owners), "every student is in exactly one shard"
    shards = []
    for i in (1, 2):
        out = tmp_path / f"shard{i}"
        assert main(["autograde", str(submissions), "--out", str(out), "--notebooks", NAME,
                     "--shard", f"{i}/2", "--quiet"]) == 0
        shards.append(out)
    merged = tmp_path / "merged"
    assert main(["merge", *map(str, shards), "--out", str(merged), "--notebooks", NAME]) == 0
    assert _read(merged / "grades.csv") == _read(serial / "grades.csv")
    shutil.rmtree(tmp_path / "shard1")
