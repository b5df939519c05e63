"""The parts of issue 39 without nbgrader or a kernel: what the pre-flight says from an executed notebook, the set-up
step's verdict, where the sandbox may look, and where the grading interpreter really imports each course package
from. End to end, with real nbgrader and the two layouts of the issue: tests/e2e/grading/test_preflight_e2e.py."""

from __future__ import annotations

import json
import sys

import nbformat
import pytest

from gpucourse import bootstrap
from graders.grading import autograde, interpreter, preflight, sandbox, setup_cell
from graders.grading.job import Attempt
from graders.grading.row import Row
from graders.paths import REPO
from tests.helpers.layouts import without_helper_package

SETUP = 'GPUCOURSE_VERSION = "0.5.0"\nfrom gpucourse.bootstrap import setup\n'


def cell(source, *outputs, grade_id=None):
    c = nbformat.v4.new_code_cell(source)
    c.outputs = list(outputs)
    if grade_id:
        c.metadata["nbgrader"] = {"grade_id": grade_id, "locked": True, "grade": False, "solution": False}
    return c


def said(payload: dict):
    return nbformat.v4.new_output("stream", name="stdout", text=preflight.MARK + json.dumps(payload) + "\n")


def error(ename, evalue):
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[])


def ran(probe: dict, setup_outputs=(), data_outputs=None):
    nb = nbformat.v4.new_notebook()
    data_outputs = [said({"data": "/data"})] if data_outputs is None else data_outputs
    nb.cells = [cell(preflight.PROBE, said(probe)), cell(SETUP, *setup_outputs), cell(preflight.DATA_CHECK,
                                                                                       *data_outputs)]
    return nb


PACKAGES = {name: f"/site/{name}/__init__.py" for name in interpreter.COURSE_PACKAGES}


# -- the pre-flight's verdict ---------------------------------------------------------------------------------
def test_a_kernel_that_ran_the_set_up_and_read_the_data_passes_and_says_where_from():
    result = preflight.verdict(ran({"packages": PACKAGES, "gpucourse": "0.5.0"}), "", [SETUP], 1.5)
    assert result.ok
    assert "gpucourse 0.5.0 from /site/gpucourse" in result.line and "torch from /site/torch" in result.line


def test_a_missing_package_names_it_where_the_grader_finds_it_and_what_to_do(monkeypatch):
    monkeypatch.setattr(interpreter, "package_paths", lambda: {n: None for n in interpreter.COURSE_PACKAGES})
    probe = {"packages": {**PACKAGES, "gpucourse": None}, "gpucourse": None}
    result = preflight.verdict(ran(probe, [error("SystemExit", "Could not install the helper package gpucourse")]),
                               "", [SETUP], 3.0)
    assert not result.ok
    assert result.line.startswith("the grading kernel cannot import gpucourse")
    assert f"the grader's own Python imports it from {REPO / 'gpucourse'}" in result.line
    assert f"{sys.executable} -m pip install -e {REPO}" in result.line
    assert "\n" not in result.line


def test_a_package_the_interpreter_finds_but_the_sandbox_hides_is_said_so(monkeypatch):
    monkeypatch.setattr(interpreter, "package_paths", lambda: {"torch": ["/elsewhere/torch"]})
    monkeypatch.setattr(sandbox, "active", lambda: True)
    probe = {"packages": {**PACKAGES, "torch": None}, "gpucourse": "0.5.0"}
    result = preflight.verdict(ran(probe, [error("ModuleNotFoundError", "No module named 'torch'")]), "", [SETUP], 1)
    assert "cannot import torch" in result.line and "finds it at /elsewhere/torch" in result.line
    assert "the sandbox does not show where it is" in result.line


def test_another_version_of_the_helper_package_is_named_with_the_one_the_notebooks_need():
    probe = {"packages": PACKAGES, "gpucourse": "0.4.0"}
    result = preflight.verdict(ran(probe, [error("SystemExit", "Could not install")]), "", [SETUP], 1)
    assert not result.ok
    assert "gpucourse 0.4.0 from /site/gpucourse" in result.line and "need 0.5.0" in result.line


def test_a_data_cache_the_kernel_cannot_read_is_named():
    nb = ran({"packages": PACKAGES, "gpucourse": "0.5.0"},
             data_outputs=[error("PermissionError", "[Errno 13] Permission denied: '/data/raw'")])
    result = preflight.verdict(nb, "", [SETUP], 1)
    assert not result.ok and "cannot read the course's data (PermissionError" in result.line


def test_a_kernel_that_never_started_says_what_stopped_it():
    result = preflight.verdict(None, "bwrap: Can't find source path /x: No such file or directory\n", [SETUP], 1)
    assert not result.ok and "did not start (bwrap: Can't find source path /x" in result.line


def test_require_refuses_with_exit_2_and_says_nothing_was_graded(monkeypatch):
    monkeypatch.setattr(preflight, "check", lambda *a, **k: preflight.Result(False, "the kernel cannot import x"))
    with pytest.raises(preflight.KernelCannotRunCourse) as caught:
        preflight.require([], None)
    assert caught.value.exit_code == 2 and str(caught.value).endswith("nothing was graded")
    monkeypatch.setenv(preflight.ENV_SWITCH, "0")
    assert preflight.require([], None).ok  # the debugging switch: the set-up step still fails such rows


def test_the_probe_asks_for_every_library_the_set_up_cell_requires():
    assert {module for module, _ in bootstrap.REQUIRED} | {"gpucourse"} <= set(interpreter.COURSE_PACKAGES)


def test_every_released_notebook_shares_one_set_up_cell():
    """The pre-flight runs each distinct set-up source once: today all eight notebooks start the same way."""
    sources = preflight.setup_sources(preflight.released_in_repo())
    assert len(preflight.released_in_repo()) == 8 and len(sources) == 1 and "setup(GPUCOURSE_VERSION)" in sources[0]


# -- the set-up step ------------------------------------------------------------------------------------------
def test_a_set_up_cell_that_raised_is_a_failed_row_with_its_cause(tmp_path):
    graded = tmp_path / "graded.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell("x = 1"), cell(SETUP, error("ModuleNotFoundError", "No module named 'gpucourse'\nmore"),
                                    grade_id="setup")]
    nbformat.write(nb, str(graded))

    class Job:
        student, name, max_score = "s1", "01_devices", 10.0

    row = setup_cell.setup_ran(Job(), Attempt(1, tmp_path, graded=graded))
    assert isinstance(row, Row) and row.status == "failed" and row.score == 0.0
    assert row.message.startswith(setup_cell.FAILED)
    assert "ModuleNotFoundError: No module named 'gpucourse'" in row.message and "more" not in row.message
    assert "1 code cell(s) the student added above it" in row.message
    nb.cells = [cell(SETUP, said({}), grade_id="setup"), cell("1/0", error("ZeroDivisionError", "division"))]
    nbformat.write(nb, str(graded))
    assert setup_cell.setup_ran(Job(), Attempt(1, tmp_path, graded=graded)) is None  # a student's error is graded


def test_the_summary_counts_set_up_failures_apart():
    rows = [Row("a", "01_devices", 10, 10, "graded"),
            Row("b", "01_devices", 0, 10, "failed", setup_cell.message("SystemExit: x")),
            Row("c", "01_devices", 0, 10, "failed", "the kernel died")]
    assert autograde.status_counts(rows) == "1 graded, 2 failed (1 at the course's set-up)"
    assert any("1 notebook(s) not graded: the course's set-up cell failed" in line
               for line in autograde.table_lines(rows))


# -- where the sandbox may look -------------------------------------------------------------------------------
def test_the_sandbox_never_shows_a_course_checkout_but_may_show_its_package_and_the_venv(tmp_path):
    clone = tmp_path / "other-clone"
    (clone / "sources").mkdir(parents=True)
    (clone / "sources" / "manifest.toml").write_text("")
    (clone / "solutions").mkdir()
    (clone / "gpucourse").mkdir()
    assert not sandbox.may_show(str(clone))
    assert sandbox.may_show(str(clone / "gpucourse"))
    assert not sandbox.may_show(str(REPO)) and not sandbox.may_show(str(REPO.parent))
    for private in sandbox.PRIVATE:
        assert not sandbox.may_show(str(REPO / private / "x"))
    assert sandbox.may_show(str(REPO / ".venv" / "lib" / "python3.11" / "site-packages"))
    assert sandbox.may_show(str(REPO / "gpucourse"))


def test_the_sandbox_shows_where_each_course_package_resolves(tmp_path, monkeypatch):
    elsewhere = tmp_path / "other-clone" / "gpucourse"
    editable = tmp_path / "editable" / "mypkg"
    for folder in (elsewhere, editable):
        folder.mkdir(parents=True)
    monkeypatch.setattr(interpreter, "import_folders", lambda: ("/usr/lib/python3",))
    monkeypatch.setattr(interpreter, "package_paths", lambda: {"gpucourse": [str(elsewhere)], "torch": None})
    monkeypatch.setattr(interpreter, "editable_folders", lambda: [str(editable), str(REPO / "graders")])
    paths = sandbox.system_paths()
    assert str(elsewhere) in paths and str(editable) in paths
    assert str(REPO / "graders") not in paths


def test_package_paths_follow_a_pth_folder_outside_the_prefix(tmp_path, monkeypatch):
    """Where the interpreter started as a kernel really imports the helper package from: a folder a ``.pth`` line
    adds (any route an import takes, ``find_spec`` takes: editable finders are tried end to end)."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "gpucourse").mkdir(parents=True)
    (elsewhere / "gpucourse" / "__init__.py").write_text("__version__ = 'x'\n")
    python = without_helper_package(tmp_path / "venv", elsewhere)
    monkeypatch.setattr(sys, "executable", str(python))
    found = interpreter.package_paths()
    assert found["gpucourse"] == [str(elsewhere / "gpucourse")]
    assert found["torch"] is None  # this bare venv has no torch: the pre-flight would name it
