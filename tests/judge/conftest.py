"""One judge run for the whole test session, whichever pytest-xdist workers the judge tier's files land on (the same
way tests/e2e/grading/conftest.py makes its one grading of the samples: a lock file in the run's shared temporary
folder; the first worker judges, the others read its verdicts)."""

from __future__ import annotations

import fcntl
import pickle

import pytest

from tests.helpers import verdicts


@pytest.fixture(scope="session", autouse=True)
def one_judge_run(tmp_path_factory, worker_id):
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the folder above every worker's own
    saved = shared / "judge-verdicts.pickle"
    with open(shared / "judge-verdicts.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when the judge fails
        if not saved.exists():
            saved.write_bytes(pickle.dumps(verdicts.judge_every_notebook()))
    verdicts.share(pickle.loads(saved.read_bytes()))
