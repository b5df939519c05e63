"""The file watch as a declared step (graders/grading/watch.py): started in PREPARE only when the run's limits ask
for it, checked by the execute step after every attempt."""

from __future__ import annotations

from types import SimpleNamespace

from graders.grading import pipeline, watch
from graders.limits import Limits


def job(tmp_path, watch_files: int):
    folder = tmp_path / "submissions" / "alice"
    folder.mkdir(parents=True)
    return SimpleNamespace(limits=Limits(watch_files=watch_files), item=SimpleNamespace(folder=folder), watch=None)


def test_the_watch_is_a_declared_prepare_step():
    assert watch.start in pipeline.PREPARE


def test_off_by_default_nothing_is_watched(tmp_path):
    j = job(tmp_path, 0)
    assert watch.start(j) is None and j.watch is None and watch.changes(j) == []


def test_on_it_sees_a_change_among_the_submissions(tmp_path):
    j = job(tmp_path, 1)
    assert watch.start(j) is None and isinstance(j.watch, watch.FileWatch)
    (tmp_path / "submissions" / "bob.ipynb").write_text("{}")  # another student's folder, beside alice's
    assert [c for c in watch.changes(j) if "bob.ipynb was created" in c]
    assert watch.changes(j) == []
