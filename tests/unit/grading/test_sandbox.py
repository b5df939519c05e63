"""The OS sandbox of grading kernels (graders/grading/sandbox.py) and the warm slot's template
(graders/grading/warm.py, kernel_template.py, kernel_launch.py), without a kernel: the escapes tried from inside
the sandbox, the line that says what protects, the kernel's argv. A kernel forked by the template:
tests/e2e/grading/test_sandbox_e2e.py; the whole-notebook escapes: tests/e2e/grading/test_adversarial.py."""

from __future__ import annotations

import os
from unittest import mock

import pytest

from graders.grading import kernels, rundir, sandbox, warm
from graders.grading.protection import report
from graders.paths import REPO

needs_sandbox = pytest.mark.skipif(not sandbox.active(), reason=sandbox.probe().why)


@needs_sandbox
def test_check_finds_every_escape_contained():
    rows = sandbox.check_containment()
    assert {name for name, _, _ in rows} == {"read the grader's files", "read the grader's HOME",
                                             "write outside its folder", "connect out", "see other processes"}
    assert [(name, what) for name, contained, what in rows if not contained] == []


def test_without_the_sandbox_one_line_says_so():
    sandbox.probe.cache_clear()
    try:
        with mock.patch.dict(os.environ, {sandbox.ENV_SWITCH: "0"}):
            protection = sandbox.probe()
            assert not protection.sandboxed and "\n" not in protection.line()
            assert "guard's file rules" in protection.line()
            assert not warm.enabled()
            lines = report()
            assert lines[0] == protection.line() and any("warm start: off" in line for line in lines)
    finally:
        sandbox.probe.cache_clear()


def test_a_missing_bwrap_is_named():
    sandbox.probe.cache_clear()
    try:
        with mock.patch.object(sandbox, "bwrap", return_value=None):
            assert "bubblewrap is not installed" in sandbox.probe().line()
    finally:
        sandbox.probe.cache_clear()


def test_the_template_script_needs_nothing_of_the_graders_package():
    source = (REPO / "graders" / "grading" / "kernel_template.py").read_text()
    launcher = (REPO / "graders" / "grading" / "kernel_launch.py").read_text()
    assert "graders" not in "".join(line for line in source.splitlines() if line.startswith(("import", "from")))
    assert "graders" not in "".join(line for line in launcher.splitlines() if line.startswith(("import", "from")))


def test_the_kernel_may_write_only_its_own_folder_and_the_gradebook_is_not_in_it(tmp_path):
    root = tmp_path / "course"
    for rel in ("gradebook.db", "source/nb/x.txt", "release/nb/nb.ipynb"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    (tmp_path / "slot").mkdir()
    for parent in (None, tmp_path / "slot"):
        run = rundir.make(root, "nb", kernel_parent=parent)
        try:
            k = rundir.kernel_dir(run)
            assert (run / "course" / "autograded").resolve() == k / "autograded"
            assert not (run / "course" / "gradebook.db").resolve().is_relative_to(k)
            assert {(run / sub).resolve() for sub in ("home", "tmp", "guard.log")} <= set(k.iterdir())
            with mock.patch.object(sandbox, "active", return_value=True), \
                    mock.patch.object(sandbox, "bwrap", return_value="/usr/bin/bwrap"):
                argv = kernels.argv(run)
            writable = [argv[i + 2] for i, a in enumerate(argv) if a == "--bind"]
            assert writable == [str(k)]
            assert "--unshare-all" in argv and "--die-with-parent" in argv
            assert argv[argv.index("--cap-drop") + 1] == "ALL"
        finally:
            rundir.remove(run)
        assert not run.exists() and not k.exists()
