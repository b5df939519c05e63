"""The grading steps of ``graders.grading.pipeline``, each on its own: no nbgrader run, no kernel.

The end-to-end runs (tests/e2e/grading/test_grading.py, tests/e2e/grading/test_adversarial.py) show the steps together;
these show what each promises, fast, and fail when one of them breaks it.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest

from graders import authoring, nbtools
from graders.grading import execute, guarding, pipeline, publish, rundir, sanitize, score, verdict
from graders.grading.guard_cells import MARK, source_hash
from graders.grading.guard_log import GuardReport
from graders.grading.job import RETRY, Attempt, Job
from graders.grading.row import Row
from graders.intake import student_files as intake
from graders.limits import Limits
from graders.paths import COURSE_ID
from tests.helpers.gradebooks import new_gradebook


def released():
    return authoring.notebook([
        authoring.md("intro", "# A notebook"),
        authoring.solution("answer", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                                     "    ### END SOLUTION\n"),
        authoring.tests("test_double", 2, "assert double(2) == 4\n### BEGIN HIDDEN TESTS\nassert double(3) == 6\n"
                                          "### END HIDDEN TESTS\n"),
        authoring.tests("test_more", 3, "assert double(0) == 0\n"),
    ])


def job(tmp_path: Path, nb=None, **kw) -> Job:
    release = released()
    item = intake.Intake("nb", path=kw.pop("path", None), nb=nb or copy.deepcopy(release), folder=tmp_path / "in" / "s")
    return Job(tmp_path / "course", tmp_path / "out", "s", item, 5.0, release, release,
               nbtools.test_points(release), **kw)


# -- the pipeline's declaration --------------------------------------------------------------
def test_student_code_runs_repaired_scanned_and_guarded_and_only_a_verdict_is_published(tmp_path, monkeypatch):
    """What the steps' order is for, whatever steps are added: when the student's code first runs (nbgrader,
    replaced here) the submission has been repaired and read by the scan, and the copy nbgrader gets holds the
    guard; what is published carries the verdict on the scores. Only nbgrader, the gradebook and the publishing are
    stood in for, found by what they are, not by their place in the declaration."""
    from graders.grading import guard_cells

    nb = released()
    del nb.cells[2]  # a deleted test cell, which the repair puts back
    nb.cells[1].source = "import builtins\nbuiltins.isinstance = lambda *a: True\ndef double(x):\n    return 2 * x\n"
    seen = {}

    def nbgrader(j, attempt):
        submitted = attempt.run / "course" / "submitted" / j.student / j.name / f"{j.name}.ipynb"
        ran = nbtools.read(submitted)
        seen["scanned"] = any("isinstance" in f for f in j.findings)
        seen["repaired"] = sum(1 for c in ran.cells if nbtools.grade_id(c) == "test_double") == 1
        seen["guarded"] = any(guard_cells.MARK in c.source for c in ran.cells)

    def gradebook(j, attempt):
        attempt.cells = {gid: (0.0, pts) for gid, pts in j.points.items()}

    def publishing(j, attempt):
        seen["published"] = attempt.row
        return attempt.row

    stand_ins = {execute.execute: nbgrader, score.score: gradebook, publish.publish: publishing}
    monkeypatch.setattr(pipeline, "RUN", tuple(stand_ins.get(step, step) for step in pipeline.RUN))
    monkeypatch.setattr(pipeline, "start", lambda *a, **kw: job(tmp_path, nb=nb))
    monkeypatch.setattr(rundir, "make", lambda *a, **kw: (tmp_path / "run").mkdir(exist_ok=True) or tmp_path / "run")
    row = pipeline.grade_one(tmp_path, tmp_path, "s", intake.Intake("nb", nb=nb), 5.0)
    assert {k: seen.get(k) for k in ("scanned", "repaired", "guarded")} == dict.fromkeys(
        ("scanned", "repaired", "guarded"), True), seen
    assert seen["published"] is row and row.cells == {"test_double": (0.0, 2.0), "test_more": (0.0, 3.0)}, \
        "what is published is the verdict on the scores"


def test_a_retry_grades_again_from_the_guard_step_and_a_row_ends_it(tmp_path, monkeypatch):
    calls = []
    answers = iter([None, RETRY, None, Row("s", "nb", 1.0, 5.0, "graded")])
    monkeypatch.setattr(pipeline, "PREPARE", ())
    monkeypatch.setattr(pipeline, "RUN", (lambda j, a: calls.append(("guard", a.number)),
                                          lambda j, a: next(answers), lambda j, a: next(answers)))
    monkeypatch.setattr(pipeline, "start", lambda *a: job(tmp_path))
    monkeypatch.setattr(rundir, "make", lambda root, name, kernel_parent=None, limits=None:
                        Path(tmp_path / f"run{len(calls)}"))
    row = pipeline.grade_one(tmp_path, tmp_path, "s", intake.Intake("nb", nb=released()), 5.0)
    assert row.score == 1.0 and calls == [("guard", 1), ("guard", 2)]


def test_a_problem_found_at_intake_is_a_failed_row_and_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "start", lambda *a: pytest.fail("nothing may run"))
    row = pipeline.grade_one(tmp_path, tmp_path, "s", intake.Intake("nb", problem="not valid JSON"), 5.0)
    assert (row.status, row.score, row.message) == ("failed", 0.0, "not valid JSON")


# -- sanitize ---------------------------------------------------------------------------------
def test_repair_grades_a_copy_and_says_what_it_repaired(tmp_path):
    nb = released()
    del nb.cells[2]  # the student deleted a test cell
    j = job(tmp_path, nb=nb)
    sanitize.repair(j)
    assert len(j.nb.cells) == 4 and len(j.item.nb.cells) == 3  # put back, in the copy only
    assert any("test_double" in note for note in j.notes)


@pytest.mark.parametrize("run_flagged", [True, False])
def test_scan_finds_tampering_and_runs_it_only_when_allowed(tmp_path, run_flagged):
    nb = released()
    nb.cells[1].source = "import builtins\nbuiltins.isinstance = lambda *a: True\ndef double(x):\n    return 2 * x\n"
    j = job(tmp_path, nb=nb, limits=Limits(run_flagged=int(run_flagged)))
    sanitize.repair(j)
    row = sanitize.scan(j)
    assert j.findings and "isinstance" in " ".join(j.findings)
    if run_flagged:
        assert row is None
    else:
        assert (row.status, row.score) == ("review", None) and "not run" in row.message


def test_scan_leaves_a_good_faith_answer_alone(tmp_path):
    nb = released()
    nb.cells[1].source = "from time import time\n_cache = {}\ndef double(x):\n    start = time()\n    return x + x\n"
    j = job(tmp_path, nb=nb)
    sanitize.repair(j)
    assert sanitize.scan(j) is None and j.findings == []


# -- the private folder and the guard ---------------------------------------------------------
def course_folder(root: Path) -> None:
    for rel, text in (("gradebook.db", "db v1"), ("release/nb/nb.ipynb", "{}"), ("release/other/other.ipynb", "{}"),
                      ("source/nb/nb.ipynb", "solutions!"), ("nbgrader_config.py", "c.Anything = 1")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_a_private_folder_holds_one_release_no_solutions_and_the_projects_config(tmp_path):
    root = tmp_path / "course"
    course_folder(root)
    run = rundir.make(root, "nb")
    assert (run / "course" / "release" / "nb" / "nb.ipynb").exists()
    assert not (run / "course" / "release" / "other").exists()
    assert not (run / "course" / "source" / "nb" / "nb.ipynb").exists()  # the solutions stay out
    assert (run / "course" / "nbgrader_config.py").read_text().startswith("# written by graders.course")
    (root / "gradebook.db").write_text("db changed after the first run")  # cannot feed a later run
    assert (rundir.make(root, "nb") / "course" / "gradebook.db").read_text() == "db v1"


def test_the_kernels_environment_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/evil")
    monkeypatch.setenv("PYTHONSTARTUP", "/evil.py")
    env = rundir.environment(tmp_path, "k" * 32)
    assert "PYTHONPATH" not in env and "PYTHONSTARTUP" not in env
    kernel = tmp_path / "k"  # the only folder the kernel's sandbox shows (rundir.make links home and tmp to it)
    assert env["HOME"] == str(kernel / "home") and env["TMPDIR"] == str(kernel / "tmp")
    assert env["GRADER_KERNEL_DIR"] == str(kernel) and env["JUPYTER_PATH"] == str(tmp_path / "jupyter")


def test_the_guard_step_writes_the_guarded_copy_and_the_hand_ins_time(tmp_path):
    hand_in = tmp_path / "in" / "s" / "nb.ipynb"
    hand_in.parent.mkdir(parents=True)
    nbformat.write(released(), str(hand_in))
    (hand_in.parent / "timestamp.txt").write_text("2026-11-30 21:15:00.000000 UTC\n")
    j = job(tmp_path, path=hand_in)
    j.nb = copy.deepcopy(j.item.nb)
    j.log_path.parent.mkdir(parents=True)
    run = tmp_path / "run"
    guarding.add(j, Attempt(1, run))
    written = run / "course" / "submitted" / "s" / "nb"
    guarded = nbtools.read(written / "nb.ipynb")
    assert sum(1 for c in guarded.cells if MARK in c.source) >= 2 and len(j.nb.cells) == 4
    assert (written / "timestamp.txt").read_text().startswith("2026-11-30")
    config = guarding.guard_config(run, "s", "nb", j.release, j.source, j.out, j.item, j.root, [], sandboxed=False)
    assert str(j.root.resolve()) in config["read_deny"] and str((run / "k" / "mpl").resolve()) in config["write_roots"]


# -- execute ----------------------------------------------------------------------------------
def test_failure_reasons_are_sentences():
    assert "600 s" in execute.failure_reason(None, "") or "limit" in execute.failure_reason(None, "")
    assert "kernel died" in execute.failure_reason(1, "DeadKernelError: Kernel died")
    assert "out of memory" in execute.failure_reason(1, "MemoryError")
    assert "larger than its points" in execute.failure_reason(1, "partial credit cannot be greater than")
    assert execute.failure_reason(3, "nothing useful") == "nbgrader exited with status 3"


def test_neutralise_replaces_the_students_cell_and_never_a_test():
    nb = released()
    answer, test = nb.cells[1], nb.cells[2]
    assert execute.neutralise(nb, source_hash(test.source)) is None
    assert execute.neutralise(nb, source_hash(answer.source)) == "answer"
    assert "skipped this cell" in nb.cells[1].source and "assert double(2)" in nb.cells[2].source


def test_timeouts_name_the_interrupted_cells():
    nb = released()
    nb.cells[1].outputs = [nbformat.v4.new_output("error", ename="CellTimeoutError", evalue="", traceback=[])]
    assert execute.timeouts(nb) == ["answer"]


# -- score, verdict, publish --------------------------------------------------------------------
def gradebook(db: Path, auto: dict[str, float]) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{new_gradebook(db)}", course_id=COURSE_ID) as gb:
        gb.update_or_create_assignment("nb")
        gb.update_or_create_notebook("nb", "nb")
        for gid, pts in (("test_double", 2.0), ("test_more", 3.0)):
            gb.update_or_create_grade_cell(gid, "nb", "nb", max_score=pts, cell_type="code")
        gb.update_or_create_student("s")
        gb.add_submission("nb", "s")
        for gid, value in auto.items():
            gb.find_grade(gid, "nb", "nb", "s").auto_score = value
        gb.db.commit()


def graded_notebook(passed: set[str]):
    nb = released()
    for cell in nb.cells:
        if nbtools.is_test_cell(cell) and nbtools.grade_id(cell) not in passed:
            cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="", traceback=[])]
    return nb


def scored_job(tmp_path, auto, passed, per_test=None):
    run = tmp_path / "run"
    (run / "course").mkdir(parents=True)
    gradebook(run / "course" / "gradebook.db", auto)
    j, a = job(tmp_path), Attempt(1, run)
    a.graded = tmp_path / "graded.ipynb"
    nbformat.write(graded_notebook(passed), str(a.graded))
    a.report = GuardReport(per_test=per_test or {})
    score.score(j, a)
    return j, a


def test_scores_are_nbgraders_when_the_graded_notebook_agrees(tmp_path):
    j, a = scored_job(tmp_path, {"test_double": 2.0, "test_more": 0.0}, {"test_double"})
    assert a.cells == {"test_double": (2.0, 2.0), "test_more": (0.0, 3.0)} and a.broken == [] and j.evidence == []
    verdict.verdict(j, a)
    assert (a.row.status, a.row.score) == ("graded", 2.0)


def test_a_gradebook_that_disagrees_with_the_notebook_withholds_the_score(tmp_path):
    j, a = scored_job(tmp_path, {"test_double": 2.0, "test_more": 3.0}, {"test_double"})
    assert "the gradebook and the graded notebook disagree" in a.broken
    j.log_path.parent.mkdir(parents=True)
    verdict.verdict(j, a)
    assert (a.row.status, a.row.score) == ("review", None)


def test_a_test_tampered_with_while_it_ran_scores_0_until_reviewed(tmp_path):
    j, a = scored_job(tmp_path, {"test_double": 2.0, "test_more": 3.0}, {"test_double", "test_more"},
                      per_test={"test_more": ["torch.allclose replaced while test_more ran"]})
    assert a.untrusted == ["test_more"] and a.broken == []
    j.log_path.parent.mkdir(parents=True)
    verdict.verdict(j, a)
    assert (a.row.status, a.row.score) == ("review", 2.0) and "test_more scores 0" in a.row.message


def test_publish_files_the_hand_in_not_the_guarded_copy_and_keeps_a_manual_grade(tmp_path):
    from nbgrader.api import Gradebook

    j, a = scored_job(tmp_path, {"test_double": 2.0, "test_more": 0.0}, {"test_double"})
    j.root.mkdir(parents=True)
    gradebook(j.root / "gradebook.db", {"test_double": 0.0, "test_more": 0.0})
    with Gradebook(f"sqlite:///{j.root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        gb.find_grade("test_more", "nb", "nb", "s").manual_score = 1.5  # the instructor's, in the formgrader
        gb.db.commit()
    (a.run / "course" / "autograded" / "s" / "nb").mkdir(parents=True)
    a.row = Row("s", "nb", 2.0, 5.0, "graded")
    assert publish.publish(j, a) is a.row
    filed = nbtools.read(j.root / "submitted" / "s" / "nb" / "nb.ipynb")
    assert not any(MARK in c.source for c in filed.cells)
    with Gradebook(f"sqlite:///{j.root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        more = gb.find_grade("test_more", "nb", "nb", "s")
        assert (more.auto_score, more.manual_score) == (0.0, 1.5)
        assert gb.find_grade("test_double", "nb", "nb", "s").auto_score == 2.0
