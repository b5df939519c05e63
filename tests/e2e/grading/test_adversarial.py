"""Adversarial submissions, graded by real nbgrader in one run: each ends as its expected row,
the bystanders' rows are those of a clean run, and a gamed test never yields a point. A tamper
finding is a review (graders/grading/review.py): the score computed with the guard's repairs stands, and
nbgrader's gradebook flags the notebook; a forged guard log withholds the score.

The cases are in tests/helpers/adversarial/ (fixture builders). Small limits keep the run short: a ``Limits``
passed to ``autograde``, which hands them to the grading subprocesses.

Where kernels run in the OS sandbox, the ``native-*`` cases call the C library past every audit hook, aimed
at this machine: a folder of this test's and ``/tmp`` (files), the shared gradebook and ``solutions/``
(reads), a port this test listens on (network), this process and every other (signals), and a background
process that outlives its cell. ``test_native_escapes_contained`` checks that none of it reached the machine.
"""

from __future__ import annotations

import csv
import os
import socket
from pathlib import Path

import pytest

from graders.grading import sandbox
from graders.limits import Limits
from graders.paths import REPO
from tests.helpers import adversarial

# GRADER_WATCH_FILES=0: other work may edit gpucourse/ while this runs; the sandbox or the audit hook is what is tested.
# GRADER_RUN_FLAGGED=1: a flagged notebook runs, so that its repaired score can be checked.
SMALL_LIMITS = {"GRADER_CELL_TIMEOUT_S": "30", "GRADER_NOTEBOOK_WALL_S": "180", "GRADER_RUN_FLAGGED": "1",
                "GRADER_WATCH_FILES": "0"}
CHECKS = REPO / "gpucourse" / "checks.py"


def _read(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from graders.grading.autograde import autograde

    base = tmp_path_factory.mktemp("adversarial")
    (base / "outside").mkdir()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))  # a random free port: a connection here came from a kernel
    listener.listen(16)
    host = adversarial.Host(base / "outside", base / "graded" / "course" / "gradebook.db", listener.getsockname()[1],
                            os.getpid(), os.readlink("/proc/self/ns/pid"))
    try:
        cases = adversarial.build(base / "submissions", host=host)
        solutions = adversarial.trimmed_solutions(base / "solutions")
        rows = autograde(base / "submissions", base / "graded", names=[adversarial.NAME], solutions=solutions,
                         jobs=2, progress=False, limits=Limits.from_env(SMALL_LIMITS))
    finally:
        _take_back_escapes(host)
    yield {"dir": base / "graded", "cases": {c.student: c for c in cases}, "rows": {r.student_id: r for r in rows},
           "host": host, "listener": listener, "sandboxed": sandbox.active(), "escaped": host.escaped}
    listener.close()


def _take_back_escapes(host) -> None:
    """Undo on this machine what an escaped native case did, after noting it in ``host.escaped`` for the test:
    its lines in the helper package (other work may edit the file meanwhile: only those lines go), its files,
    a background process still running."""
    if host.token in CHECKS.read_text():
        host.escaped.append(f"{CHECKS} was appended to")
        CHECKS.write_text("".join(line for line in CHECKS.read_text().splitlines(keepends=True)
                                  if host.token not in line))
    for marker in host.markers():
        if marker.exists():
            host.escaped.append(f"{marker} was created")
            marker.unlink()
    for pid in _processes_named(host.process_name):
        host.escaped.append(f"the background process {pid} outlived its kernel")
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


def _processes_named(name: str) -> list[int]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (proc / "comm").read_text().strip() == name:
                found.append(int(proc.name))
        except OSError:
            pass  # ended meanwhile
    return found


def _printed(graded, student: str) -> str:
    """What the student's notebook printed when it was graded (its published graded copy)."""
    import nbformat
    path = graded["dir"] / "course" / "autograded" / student / adversarial.NAME / f"{adversarial.NAME}.ipynb"
    assert path.exists(), f"{student} has no graded notebook: {graded['rows'][student].message}"
    nb = nbformat.read(str(path), as_version=4)
    return "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                   for out in cell.get("outputs", []) if out.get("output_type") == "stream")


def test_native_escapes_contained(graded):
    """0 escapes: each native attack ran (it printed what it tried) and reached nothing of this machine."""
    if not graded["sandboxed"]:
        pytest.skip(f"native code is contained only by the OS sandbox: {sandbox.probe().why}")
    host = graded["host"]
    printed = {s: _printed(graded, s) for s in graded["cases"] if s.startswith("native-")}
    assert graded["escaped"] == []  # files outside the run, the helper package, a process that outlived its kernel
    # writing: four targets tried; those outside the run's folder are absent or read-only in the sandbox
    assert printed["native-write-outside"].count("native-write ") == 4, printed["native-write-outside"]
    assert host.token.encode() not in host.gradebook.read_bytes()
    # reading the grader's files: nothing read, so the solutions' evaluate never ran (test_evaluate scored 0)
    assert printed["native-read-grader-files"].count(" bytes 0 ") == 2, printed["native-read-grader-files"]
    assert graded["rows"]["native-read-grader-files"].cells["test_evaluate"][0] == 0
    # connecting out: neither libc's connect nor Python's reached the port this test listens on
    assert "native-connect libc: socket" in printed["native-connect-out"]
    assert "python: connected" not in printed["native-connect-out"]
    graded["listener"].setblocking(False)
    with pytest.raises(BlockingIOError):
        graded["listener"].accept()
    # signals: kill(-1) and kill(this process) were sent from outside the grader's PID namespace (printed, or,
    # where they ended the kernel's own grading, it was graded again without that cell); the grader lived on
    # (this test runs) and every other row is whole (test_bystanders_match_a_clean_run, test_every_row_is_true)
    kill_row = graded["rows"]["native-kill-grader"]
    assert "native-kill: kill(-1) ->" in printed["native-kill-grader"] or "graded again without" in kill_row.message, \
        (printed["native-kill-grader"], kill_row.message)
    assert set(graded["rows"]) == set(graded["cases"])
    # the background process: forked, and gone with its kernel (it would try every second for FORK_TRIES_S)
    assert "native-fork: forked" in printed["native-fork-outlives"]
    assert _processes_named(host.process_name) == []


def _case_names() -> list[str]:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        return [c.student for c in adversarial.build(Path(tmp))]


@pytest.mark.parametrize("student", _case_names())
def test_case_ends_as_expected(graded, student):
    case, row = graded["cases"][student], graded["rows"].get(student)
    assert row is not None, f"{student}: no row"
    assert (row.status, row.score) == (case.status, case.score), f"{student} ({case.what}): {row.message}"
    for fragment in case.says:
        assert fragment in row.message, f"{student}: {fragment!r} not in {row.message!r}"
    if case.status == "graded" or case.status == "review" and case.score is not None:
        for gid, (score, mx) in row.cells.items():
            assert score == (0 if gid in case.lost else mx), f"{student}: {gid} scored {score}/{mx}"
    else:
        assert row.message, "a failed or withheld row says why"


def test_bystanders_match_a_clean_run(graded):
    table = {r["student_id"]: r for r in _read(graded["dir"] / "grades.csv")}
    for student in ("aaa-clean", "mmm-clean-mistakes", "zzz-clean"):
        assert table[student] == adversarial.clean_row(graded["cases"][student])


def test_gamed_tests_never_give_points(graded):
    detail = _read(graded["dir"] / "grades_detail.csv")
    for student, case in graded["cases"].items():
        if student.startswith("game-"):
            cells = {r["grade_id"]: r["score"] for r in detail if r["student_id"] == student}
            assert set(cells) == set(adversarial.POINTS), student
            for gid in case.lost:
                assert cells[gid] in ("0", ""), f"{student}: the gamed {gid} scored {cells[gid]}"


def test_reviews_are_flagged_in_nbgraders_gradebook(graded):
    import sqlite3
    with sqlite3.connect(graded["dir"] / "course" / "gradebook.db") as con:
        flagged = {s for s, f in con.execute("select s.student_id, n.flagged from submitted_notebook n join "
                                             "submitted_assignment s on n.assignment_id = s.id") if f}
    assert flagged == {s for s, c in graded["cases"].items() if c.status == "review"}


def test_every_row_is_true(graded):
    table = _read(graded["dir"] / "grades.csv")
    detail = _read(graded["dir"] / "grades_detail.csv")
    assert len(table) == len(graded["cases"])
    for row in table:
        cells = [float(d["score"] or 0) for d in detail if d["student_id"] == row["student_id"]]
        assert row["status"] in ("graded", "review", "failed")
        if row["status"] == "failed":
            assert float(row["score"]) == 0 and row["message"]
        elif row["score"] == "":  # withheld for review: no cell score either, and the message says why
            assert "withheld" in row["message"] and not any(d["score"] for d in detail
                                                            if d["student_id"] == row["student_id"])
        else:
            assert float(row["score"]) == sum(cells) and float(row["max_score"]) == adversarial.MAX


def test_nothing_outside_the_runs_changed(graded):
    assert "changed by a student" not in CHECKS.read_text()
    assert not Path("/tmp/evil.pth").exists()
    assert not (graded["dir"].parent / "grades.csv").exists()


def test_output_flood_is_cut_in_the_kernel(graded):
    nb_path = graded["dir"] / "course" / "autograded" / "million-lines" / adversarial.NAME / f"{adversarial.NAME}.ipynb"
    assert nb_path.stat().st_size < 2_000_000


def test_feedback_and_summary(graded, tmp_path):
    from graders.export.feedback import class_summary, student_feedback
    pages, _refused = student_feedback(graded["dir"], tmp_path / "feedback", [adversarial.NAME])
    students = {p.parent.parent.name for p in pages}
    assert {"aaa-clean", "mmm-clean-mistakes", "colab-saved"} <= students
    text = (tmp_path / "feedback" / "mmm-clean-mistakes" / adversarial.NAME / f"{adversarial.NAME}.html").read_text()
    assert "[FAIL]" in text and "BEGIN HIDDEN TESTS" not in text and "_expected" not in text
    table = class_summary(graded["dir"], tmp_path)
    assert {r["exercise"] for r in table} == set(adversarial.POINTS)
    assert (tmp_path / "summary.png").stat().st_size > 1000 and "pass rate" in (tmp_path / "summary.md").read_text()
