"""Nothing finished is lost (issue 33, deliverable 4): graders/grading/autograde.py's ``grade_all`` writes each row
into grades.csv as it finishes, never tears a file, keeps what earlier runs graded, grades again only what is
missing, changed or failed, and fills ``--jobs`` slots with notebooks, not only with students.

``grade_one`` (one real nbgrader run) is replaced by a stand-in that returns a row: what is tested is what the
run does with rows. The real run, stopped by a signal: tests/e2e/grading/test_stopped_run_keeps_rows.py.
"""

from __future__ import annotations

import csv
import logging
import os
import signal
import threading
from pathlib import Path

import pytest

from graders.grading import autograde, graded_folder, run_record, warm
from graders.grading.row import Row
from graders.intake.student_files import Intake
from graders.limits import Limits

NBS = ["01_devices", "02_transfers"]
#: a guard against a hang on code that grades one student's notebooks one after another, not a time bound
NEVER = 120


def _rows(out: Path) -> dict[tuple[str, str], dict]:
    with open(out / "grades.csv", newline="") as f:
        return {(r["student_id"], r["notebook"]): r for r in csv.DictReader(f)}


def _intakes(students: dict[str, str]) -> dict[str, dict[str, Intake]]:
    """{student: {notebook: Intake}}, each hand-in's bytes stood for by ``digest`` (what intake computes)."""
    return {s: {nb: Intake(nb, digest=f"{content}-{nb}") for nb in NBS} for s, content in students.items()}


class Grader:
    """The stand-in for ``pipeline.grade_one``: a row per pair, 7/10 unless told otherwise; what it graded."""

    def __init__(self, statuses: dict | None = None, before=None):
        self.calls: list[tuple[str, str]] = []
        self.statuses = statuses or {}
        self.before = before  # called with (student, notebook) before the row is returned
        self.lock = threading.Lock()

    def __call__(self, root, out, student, item, max_score, slot, limits):
        with self.lock:
            self.calls.append((student, item.notebook))
        if self.before:
            self.before(student, item.notebook, slot)
        status = self.statuses.get((student, item.notebook), "graded")
        return Row(student, item.notebook, 7.0 if status != "failed" else 0.0, max_score, status,
                   "kernel died" if status == "failed" else "", cells={"test_a": (7.0, 10.0)})


class NoSlots:
    def for_this_thread(self):
        return None


@pytest.fixture
def course(tmp_path):
    """A results folder and its course folder (no gradebook: no manual grades to read)."""
    out = tmp_path / "graded"
    (out / "course").mkdir(parents=True)
    return out, out / "course"


def grade(monkeypatch, course, students: dict[str, str], grader: Grader, jobs=1, slots=None, **kw):
    out, root = course
    monkeypatch.setattr(autograde, "grade_one", grader)
    intakes = _intakes(students)
    folders = [out.parent / "subs" / s for s in students]
    return autograde.grade_all(root, out, folders, intakes, {nb: 10.0 for nb in NBS}, NBS, jobs,
                               slots or NoSlots(), False, None, **kw)


def test_each_row_is_in_grades_csv_as_soon_as_its_notebook_finishes(monkeypatch, course):
    out, _ = course
    seen = []

    def look(student, notebook, slot):  # what an instructor (or a killed run) finds before this pair ends
        seen.append(set(_rows(out)) if (out / "grades.csv").exists() else set())

    grade(monkeypatch, course, {"ann": "a", "bob": "b"}, Grader(before=look))
    assert seen == [set(), {("ann", "01_devices")}, {("ann", "01_devices"), ("ann", "02_transfers")},
                    {("ann", "01_devices"), ("ann", "02_transfers"), ("bob", "01_devices")}]


def test_rows_of_earlier_runs_stay_while_a_run_goes(monkeypatch, course):
    out, _ = course
    earlier = Row("zoe", "01_devices", 9.0, 10.0, "graded", "", cells={"test_a": (9.0, 10.0)})
    graded_folder.write_csv([earlier], out)
    seen = []
    grade(monkeypatch, course, {"ann": "a"}, Grader(before=lambda *a: seen.append(_rows(out).get(("zoe", NBS[0])))))
    assert all(r is not None and r["score"] == "9" for r in seen)
    assert set(_rows(out)) == {("zoe", "01_devices"), ("ann", "01_devices"), ("ann", "02_transfers")}


def test_what_the_run_writes_as_it_goes_is_what_it_writes_at_the_end(monkeypatch, course):
    out, root = course
    graded_folder.write_csv([Row("zoe", "01_devices", 9.0, 10.0, "graded", "", cells={"test_a": (9.0, 10.0)})], out)
    graded = grade(monkeypatch, course, {"ann": "a", "bob": "b"},
                   Grader(statuses={("bob", "02_transfers"): "failed"}))
    as_it_went = {name: (out / name).read_bytes() for name in ("grades.csv", "grades_detail.csv")}
    monkeypatch.setattr(run_record.review, "sync_gradebook", lambda root, rows: None)  # no gradebook here
    autograde.record_run(out, root, graded)
    assert {name: (out / name).read_bytes() for name in as_it_went} == as_it_went
    assert len(_rows(out)) == 5


def test_a_write_that_stops_half_way_leaves_the_old_file_whole(monkeypatch, tmp_path):
    old = [Row("zoe", "01_devices", 9.0, 10.0, "graded", "", cells={"test_a": (9.0, 10.0)})]
    graded_folder.write_csv(old, tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in ("grades.csv", "grades_detail.csv")}

    class Killed(Row):  # the signal arrives while the rows are being written, in the first file or the second
        def csv(self):
            raise KeyboardInterrupt

        def detail(self):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        graded_folder.write_csv([Row("ann", "01_devices", 3.0, 10.0, "graded", "", cells={"test_a": (3.0, 10.0)}),
                                 Killed("bob", "01_devices", 1.0, 10.0, "graded")], tmp_path)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    # no temporary left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graded_folder.json", "grades.csv", "grades_detail.csv"]


def test_a_rerun_grades_only_what_is_missing_changed_or_failed(monkeypatch, course, caplog):
    out, _ = course
    first = Grader(statuses={("bob", "02_transfers"): "failed"})
    grade(monkeypatch, course, {"ann": "a", "bob": "b"}, first)
    assert len(first.calls) == 4
    kept_before = _rows(out)[("ann", "01_devices")]

    again = Grader()
    with caplog.at_level(logging.INFO, logger=autograde.log.name):
        monkeypatch.setattr(autograde, "grade_one", again)
        root = course[1]
        intakes = _intakes({"ann": "a", "bob": "b2", "cat": "c"})  # bob handed in again; cat is late
        autograde.grade_all(root, out, [out.parent / s for s in intakes], intakes, {nb: 10.0 for nb in NBS}, NBS,
                            1, NoSlots(), True, None)
    assert sorted(again.calls) == [("bob", "01_devices"), ("bob", "02_transfers"),
                                   ("cat", "01_devices"), ("cat", "02_transfers")]
    kept = [r.getMessage() for r in caplog.records if "kept" in r.getMessage()]
    assert len(kept) == 2 and all("ann" in line and "--regrade" in line for line in kept), kept
    assert _rows(out)[("ann", "01_devices")] == kept_before
    assert len(_rows(out)) == 6


def test_a_failed_row_is_graded_again_even_from_the_same_hand_in(monkeypatch, course):
    grade(monkeypatch, course, {"ann": "a"}, Grader(statuses={("ann", "02_transfers"): "failed"}))
    again = Grader()
    grade(monkeypatch, course, {"ann": "a"}, again)
    assert again.calls == [("ann", "02_transfers")]


def test_changed_tests_grade_every_hand_in_again(monkeypatch, course):
    out, root = course
    source = root / "source" / "01_devices" / "01_devices.ipynb"
    source.parent.mkdir(parents=True)
    source.write_text("the tests, version 1")
    grade(monkeypatch, course, {"ann": "a"}, Grader())
    source.write_text("the tests, version 2")  # the instructor fixed a hidden test
    again = Grader()
    grade(monkeypatch, course, {"ann": "a"}, again)
    assert again.calls == [("ann", "01_devices")]


def test_other_limits_grade_every_hand_in_again(monkeypatch, course):
    grade(monkeypatch, course, {"ann": "a"}, Grader())
    again = Grader()
    out, root = course
    monkeypatch.setattr(autograde, "grade_one", again)
    intakes = _intakes({"ann": "a"})
    autograde.grade_all(root, out, [out.parent / "ann"], intakes, {nb: 10.0 for nb in NBS}, NBS, 1, NoSlots(),
                        False, Limits(cell_timeout_s=5))  # a shorter time limit may change a score
    assert len(again.calls) == 2


def test_regrade_grades_everything_it_is_given(monkeypatch, course):
    grade(monkeypatch, course, {"ann": "a", "bob": "b"}, Grader())
    again = Grader()
    grade(monkeypatch, course, {"ann": "a", "bob": "b"}, again, regrade=True)
    assert len(again.calls) == 4


def test_a_row_missing_from_grades_csv_is_graded_whatever_the_fingerprints_say(monkeypatch, course):
    out, _ = course
    grade(monkeypatch, course, {"ann": "a"}, Grader())
    graded_folder.write_csv([], out)  # a row lost (or deleted by hand) but its fingerprint still there
    assert (out / "graded_inputs.json").read_text().count("ann/") == 2
    again = Grader()
    grade(monkeypatch, course, {"ann": "a"}, again)
    assert len(again.calls) == 2


def test_jobs_grade_one_students_notebooks_at_once_each_in_a_warm_slot_of_its_own(monkeypatch, course):
    made = []

    class Slot:  # a warm slot that starts nothing
        def __init__(self, limits=None):
            made.append(self)

        def start_soon(self):
            pass

        def close(self):
            pass

    monkeypatch.setattr(warm, "enabled", lambda: True)
    monkeypatch.setattr(warm, "Slot", Slot)
    monkeypatch.setattr(warm.machine, "caches", lambda: None)
    started = {nb: threading.Event() for nb in NBS}
    slots_used = {}

    def meet(student, notebook, slot):  # each notebook waits until the other one is being graded too
        slots_used[notebook] = slot
        started[notebook].set()
        other = NBS[1 - NBS.index(notebook)]
        assert started[other].wait(NEVER), f"{notebook} was graded alone: the other notebook never started"

    with warm.slots(2) as slots:
        grade(monkeypatch, course, {"ann": "a"}, Grader(before=meet), jobs=2, slots=slots)
    assert len(made) == 2 and slots_used[NBS[0]] is not slots_used[NBS[1]]
    assert set(slots_used.values()) == set(made)


def test_decisions_and_manual_grades_apply_to_the_rows_written_as_the_run_goes(monkeypatch, course):
    from graders.grading import gradebook_rows, review

    out, root = course
    flagged = review.Review(digest="d1", withheld=True, evidence=["cell 3: replaces torch.allclose"],
                            cells={"test_a": (6.0, 10.0)})
    graded_folder.write_csv([Row("zoe", "01_devices", None, 10.0, "review", "withheld", cells={"test_a": (6.0, 10.0)})],
                         out)
    store = review.Store(out)
    store.findings[review.key("zoe", "01_devices")] = flagged
    store.decide("zoe", "01_devices", "accept")  # the instructor accepted it before this run
    store.save()
    (root / "gradebook.db").touch()  # the formgrader's manual grade, as gradebook_rows reads it:
    manual = {("ann", "01_devices"): {"test_a": (10.0, 7.0)}}
    monkeypatch.setattr(gradebook_rows, "instructor_scores", lambda root: manual)
    seen = []
    grade(monkeypatch, course, {"ann": "a"}, Grader(before=lambda *a: seen.append(_rows(out))))
    zoe, ann = seen[-1][("zoe", "01_devices")], seen[-1][("ann", "01_devices")]  # before the last notebook ended
    assert (zoe["status"], zoe["score"]) == ("graded", "6") and "accepted" in zoe["message"]
    assert ann["score"] == "10" and "manual grade" in ann["message"]


def test_ctrl_c_lets_the_running_notebook_finish_and_starts_no_other():
    stop = threading.Event()
    finished_items = []

    def work(item):
        if item == 1:  # Ctrl-C while the first notebook runs; it goes on until the run has stopped taking new ones
            os.kill(os.getpid(), signal.SIGINT)
            assert stop.wait(NEVER), "the Ctrl-C never reached the run"
        finished_items.append(item)
        return item

    with pytest.raises(KeyboardInterrupt):
        autograde.run_threads(work, [(1,), (2,), (3,)], 1, stop)
    assert finished_items == [1]


def test_an_error_in_one_notebook_is_raised_after_the_others_running_finish(monkeypatch, course):
    out, _ = course
    started = {nb: threading.Event() for nb in NBS}

    def meet(student, notebook, slot):
        started[notebook].set()
        other = NBS[1 - NBS.index(notebook)]
        assert started[other].wait(NEVER)
        if notebook == NBS[0]:
            raise RuntimeError("a bug in the grader")

    with pytest.raises(RuntimeError, match="a bug"):
        grade(monkeypatch, course, {"ann": "a", "bob": "b"}, Grader(before=meet), jobs=2)
    assert set(_rows(out)) == {("ann", NBS[1])}  # the notebook running beside it was recorded; bob never started


def test_a_stop_while_a_row_is_written_leaves_no_fingerprint_that_vouches_for_the_old_row(monkeypatch, course):
    out, _ = course
    grade(monkeypatch, course, {"ann": "a"}, Grader())

    def killed(rows, folder):
        raise KeyboardInterrupt  # stopped while the new row of a changed hand-in is written

    monkeypatch.setattr(run_record, "write_csv", killed)
    with pytest.raises(KeyboardInterrupt):
        grade(monkeypatch, course, {"ann": "a2"}, Grader())
    monkeypatch.undo()
    again = Grader()  # the student went back to the first hand-in: grades.csv may hold either row, so grade it
    grade(monkeypatch, course, {"ann": "a"}, again)
    assert ("ann", NBS[0]) in again.calls


def test_the_pre_flight_runs_once_before_the_first_row_and_a_refusal_writes_none(monkeypatch, course, tmp_path):
    """Issue 39: ``before_first`` (the pre-flight) runs once, with the notebooks to grade, before any row; not at all
    when every pair is kept; and when it refuses, no row, no grades.csv, nothing graded."""
    from graders.grading.preflight import KernelCannotRunCourse
    calls = []
    grade(monkeypatch, course, {"s1": "a"}, Grader(), before_first=calls.append)
    assert calls == [NBS]
    grade(monkeypatch, course, {"s1": "a"}, Grader(), before_first=calls.append)
    assert calls == [NBS]  # every pair kept: no kernel needed

    def refuse(names):
        raise KernelCannotRunCourse("the grading kernel cannot import gpucourse")

    other = (tmp_path / "other", tmp_path / "other" / "course")
    other[1].mkdir(parents=True)
    grader = Grader()
    with pytest.raises(KernelCannotRunCourse):
        grade(monkeypatch, other, {"s1": "a", "s2": "b"}, grader, before_first=refuse)
    assert grader.calls == [] and not (other[0] / "grades.csv").exists()


def _as_format_1(out: Path) -> None:
    """``out`` as a grader before format 2 left it: no stamp, grades_detail.csv without its ``reason`` column."""
    (out / graded_folder.STAMP).unlink()
    with open(out / "grades_detail.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(out / "grades_detail.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, ["student_id", "notebook", "grade_id", "score", "max_score"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def test_a_run_grades_into_a_folder_written_by_the_previous_format(monkeypatch, course):
    out, _ = course
    grade(monkeypatch, course, {"ann": "a", "bob": "b"}, Grader())
    _as_format_1(out)
    assert graded_folder.format_of(out) == 1
    before = _rows(out)
    again = Grader()
    grade(monkeypatch, course, {"ann": "a", "bob": "b2", "cat": "c"}, again)  # bob handed in again; cat is new
    assert sorted(again.calls) == [("bob", "01_devices"), ("bob", "02_transfers"),
                                   ("cat", "01_devices"), ("cat", "02_transfers")]  # ann's fingerprints still hold
    assert {k: v for k, v in _rows(out).items() if k[0] == "ann"} == {k: v for k, v in before.items() if k[0] == "ann"}
    assert len(_rows(out)) == 6
    assert graded_folder.format_of(out) == graded_folder.FORMAT  # written back in today's format
    with open(out / "grades_detail.csv", newline="") as f:
        detail = list(csv.DictReader(f))
    assert all(d["reason"] == "scored 7 of 10; no reason was recorded" for d in detail), detail
