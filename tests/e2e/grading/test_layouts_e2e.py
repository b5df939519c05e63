"""The same grades from any Python layout, with the sandbox warm or cold and without it (issue 33): the correct and
the mistakes samples of 01_devices graded by real nbgrader from a venv whose torch and nbgrader live outside its
prefix (tests/helpers/layouts.py), each row as the CPU grader's expectations say (``graders.qa.sample_check``) and
none sent to review. On the H200 image this layout gave the correct sample 4/10 and `review` without the sandbox,
and killed every kernel with it. The layout's parts without nbgrader: tests/unit/grading/test_python_layouts.py.
CI's main job grades all 24 sample rows so with GRADER_SANDBOX=0 (scripts/grade_samples_elsewhere.sh)."""

from __future__ import annotations

import os
import subprocess

import pytest

from graders.grading import graded_folder, sandbox
from graders.paths import REPO, SAMPLES
from graders.qa import sample_check
from graders.qa.selftest import compare
from tests.helpers.layouts import user_site_over, venv_over

NOTEBOOK = "01_devices"


@pytest.fixture(scope="module")
def python_over(tmp_path_factory):
    return venv_over(tmp_path_factory.mktemp("layout") / "venv")


MODES = {"warm sandbox": {"GRADER_SANDBOX": "1", "GRADER_WARM": "1"},
         "cold sandbox": {"GRADER_SANDBOX": "1", "GRADER_WARM": "0"},
         "no bwrap on PATH": {"PATH": ""}}  # PATH: the venv's bin alone (as in a container without bubblewrap)


@pytest.mark.parametrize("mode", list(MODES))
def test_a_venv_over_another_prefix_grades_as_the_cpu_box_does(python_over, tmp_path, mode):
    if MODES[mode].get("GRADER_SANDBOX") == "1" and not sandbox.active():
        pytest.skip("no sandbox here: " + sandbox.probe().why)
    out = tmp_path / "graded"
    env = {**os.environ, **MODES[mode]}
    env["PATH"] = os.pathsep.join(p for p in (str(python_over.parent), env["PATH"]) if p)
    proc = subprocess.run([str(python_over), "-m", "graders", "autograde", str(SAMPLES), "--out", str(out),
                           "--notebooks", NOTEBOOK, "--students", "correct", "mistakes"],
                          cwd=REPO, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    rows = graded_folder.read_csv(out)
    expected = [e for e in sample_check.expectations([NOTEBOOK]) if e.student != "untouched"]
    assert {(r.student_id, r.notebook) for r in rows} == {(e.student, e.notebook) for e in expected}
    assert compare(rows, expected) == []  # the same scores and cells, and no row in review


def test_a_user_site_grades_as_the_cpu_box_does(tmp_path):
    """``pip install --user``: the packages in the instructor's ``~/.local``, which a kernel (whose HOME is its own)
    reaches through PYTHONUSERBASE; graded in the warm sandbox, which must show that folder."""
    home = tmp_path / "instructor"
    python = user_site_over(home)
    if python is None:
        pytest.skip("the interpreter this venv was made from has no user site")
    if not sandbox.active():
        pytest.skip("no sandbox here: " + sandbox.probe().why)
    out = tmp_path / "graded"
    env = {**os.environ, "HOME": str(home), "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONNOUSERSITE", None)
    proc = subprocess.run([str(python), "-m", "graders", "autograde", str(SAMPLES), "--out", str(out),
                           "--notebooks", NOTEBOOK, "--students", "correct"],
                          cwd=REPO, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    expected = [e for e in sample_check.expectations([NOTEBOOK]) if e.student == "correct"]
    assert compare(graded_folder.read_csv(out), expected) == []
