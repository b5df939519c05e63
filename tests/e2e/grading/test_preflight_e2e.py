"""Never a silent zero (issue 39): a grading kernel that cannot run the course stops the run before any row, or fails
the row with its cause; it never writes a `graded` zero.

Graded by real nbgrader from two Python layouts an instructor meets:
- the helper package installed editable from **another clone** (``pip install -e ../other-clone``): setuptools' import
  finder maps ``gpucourse`` to a folder no ``sys.path`` entry holds. Before, the sandbox did not show it and the
  correct sample got 0/10 `graded`; now the sandbox binds where the package really resolves, warm and cold;
- a venv whose kernel cannot import ``gpucourse`` at all (the grader imports it from its working folder): the
  pre-flight refuses the run with one line (exit 2), and with the pre-flight off (``GRADER_PREFLIGHT=0``) every row
  is `failed` with the set-up cell's cause, nothing reaches the gradebook, and the next run grades them again.
And a set-up cell broken for one notebook only (a cell the student added above it): that row `failed`, the others
graded. Unit tests of the parts: tests/unit/grading/test_preflight.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import gpucourse
from graders.grading import graded_folder, sandbox, setup_cell
from graders.paths import COURSE_ID, REPO, SAMPLES
from graders.qa import sample_check
from graders.qa.selftest import compare
from tests.e2e.grading.conftest import QUICK_NOTEBOOK
from tests.helpers.layouts import another_clone, editable_from, without_helper_package

NOTEBOOK = QUICK_NOTEBOOK


def autograde(python, *args, env=None):
    env = {**os.environ, **(env or {})}
    env["PATH"] = f"{python.parent}{os.pathsep}{env['PATH']}"
    return subprocess.run([str(python), "-m", "graders", "autograde", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def clone_python(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layout")
    clone = another_clone(folder / "other-clone")
    return editable_from(folder / "venv", clone), clone


@pytest.fixture(scope="module")
def no_helper_python(tmp_path_factory):
    return without_helper_package(tmp_path_factory.mktemp("layout") / "venv")


@pytest.mark.parametrize("warm", ["1", "0"], ids=["warm", "cold"])
def test_an_editable_install_from_another_clone_grades_full_marks_in_the_sandbox(clone_python, tmp_path, warm):
    if not sandbox.active():
        pytest.skip("no sandbox here: " + sandbox.probe().why)
    python, clone = clone_python
    where = subprocess.run([str(python), "-c", "import gpucourse; print(gpucourse.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert str(clone / "gpucourse") in where  # the layout is what it claims: the finder maps to the other clone
    out = tmp_path / "graded"
    proc = autograde(python, SAMPLES, "--out", out, "--notebooks", NOTEBOOK, "--students", "correct",
                     env={"GRADER_SANDBOX": "1", "GRADER_WARM": warm})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert f"gpucourse {gpucourse.__version__} from {clone / 'gpucourse'}" in proc.stderr  # where it came from
    expected = [e for e in sample_check.expectations([NOTEBOOK]) if e.student == "correct"]
    assert compare(graded_folder.read_csv(out), expected) == []


def test_the_other_clones_root_is_never_shown_only_its_package(clone_python, tmp_path):
    python, clone = clone_python
    code = ("import json; from graders.grading import sandbox; a = sandbox.bwrap_args([]); "
            "print(json.dumps([a[i + 1] for i, x in enumerate(a) if x == '--ro-bind']))")
    shown = json.loads(subprocess.run([str(python), "-c", code], cwd=REPO, capture_output=True, text=True,
                                      check=True).stdout)
    assert str(clone / "gpucourse") in shown
    assert not any(p == str(clone) or p.startswith(str(clone / "solutions")) for p in shown)
    assert not any(p == str(REPO) or p.startswith(str(REPO / "solutions")) for p in shown)


def test_a_kernel_that_cannot_import_the_helper_package_is_refused_before_any_row(no_helper_python, tmp_path):
    out = tmp_path / "graded"
    proc = autograde(no_helper_python, SAMPLES, "--out", out, "--notebooks", NOTEBOOK, "--students", "correct")
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-3000:]
    said = [line for line in proc.stdout.splitlines() if line.startswith("autograde:")]
    assert len(said) == 1, proc.stdout
    line = said[0]
    assert "cannot import gpucourse" in line                               # what is missing
    assert f"imports it from {REPO / 'gpucourse'}" in line                 # where the grader's own Python finds it
    assert f"pip install -e {REPO}" in line and "nothing was graded" in line  # what to do
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not (out / "grades.csv").exists() and not (out / "grades_detail.csv").exists()


def test_autograde_check_runs_the_same_pre_flight(no_helper_python):
    proc = subprocess.run([str(no_helper_python), "-m", "graders", "autograde", "--check"], cwd=REPO,
                          capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{no_helper_python.parent}{os.pathsep}{os.environ['PATH']}"})
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.splitlines()[-1].startswith("FAIL pre-flight: the grading kernel cannot import gpucourse")


def test_without_the_pre_flight_a_failed_set_up_is_a_failed_row_never_a_grade(no_helper_python, tmp_path):
    out = tmp_path / "graded"
    names = [NOTEBOOK, "06_bf16"]
    proc = autograde(no_helper_python, SAMPLES, "--out", out, "--notebooks", *names, "--students", "correct",
                     env={"GRADER_PREFLIGHT": "0"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    rows = graded_folder.read_csv(out)
    assert [(r.notebook, r.status) for r in rows] == [(n, "failed") for n in names]
    for row in rows:
        assert row.message.startswith(setup_cell.FAILED) and "gpucourse" in row.message, row.message
    assert "2 failed (2 at the course's set-up)" in proc.stdout
    assert not _gradebook_scores(out)  # nothing reached the gradebook, so nothing reaches an LMS export
    # the machine fixed (the repository's own venv), the next run grades both again, without --regrade
    again = autograde(_python(), SAMPLES, "--out", out, "--notebooks", *names, "--students", "correct")
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-3000:]
    expected = [e for e in sample_check.expectations(names) if e.student == "correct"]
    assert compare(graded_folder.read_csv(out), expected) == []
    assert set(_gradebook_scores(out)) == {("correct", n) for n in names}


def test_a_set_up_cell_broken_for_one_notebook_fails_that_row_only(tmp_path):
    """A cell the student added above 06's set-up cell hides torch from it: 06 is `failed` with the cause (and the
    note that the student's cell ran first), NOTEBOOK of the same student is graded as the correct sample is."""
    submissions = tmp_path / "submissions"
    shutil.copytree(SAMPLES / "correct", submissions / "correct")
    path = submissions / "correct" / "06_bf16.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    index = next(i for i, c in enumerate(nb.cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                 == setup_cell.SETUP_ID)
    nb.cells.insert(index, nbformat.v4.new_code_cell("import sys\nsys.modules['torch'] = None"))
    nbformat.write(nb, str(path))
    out = tmp_path / "graded"
    proc = autograde(_python(), submissions, "--out", out, "--notebooks", NOTEBOOK, "06_bf16")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    rows = {r.notebook: r for r in graded_folder.read_csv(out)}
    assert rows["06_bf16"].status == "failed"
    assert rows["06_bf16"].message.startswith(setup_cell.FAILED) and "the student added above it" in \
        rows["06_bf16"].message
    expected = [e for e in sample_check.expectations([NOTEBOOK]) if e.student == "correct"]
    assert compare([rows[NOTEBOOK]], expected) == []
    assert set(_gradebook_scores(out)) == {("correct", NOTEBOOK)}


def _python() -> Path:
    """This test run's interpreter (the repository's venv): one whose kernels import the course."""
    return Path(sys.executable)


def _gradebook_scores(out) -> dict:
    from nbgrader.api import Gradebook
    found = {}
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                for nb in submission.notebooks:
                    found[(submission.student.id, nb.name)] = nb.score
    return found
