"""A graded course opened somewhere else (issue 33, deliverable 7): its ``nbgrader_config.py`` still loads the project's
settings (which hide the hidden tests and the guard from the students' feedback), or stops nbgrader with a message;
and the graded copy the formgrader shows has each guard cell as one line.

The course's config is loaded here as nbgrader loads it (traitlets' PyFileConfigLoader, in this process); the
end-to-end side, with real nbgrader and the formgrader in a browser, is tests/e2e/grading/test_formgrader_e2e.py.
"""

from __future__ import annotations

import copy
import stat
import sys
from pathlib import Path

import nbformat
import pytest

from graders import authoring, course, nbtools
from graders.export.feedback import clean_for_student
from graders.grading import guard_cells, publish
from graders.intake import student_files as intake
from graders.limits import Limits
from graders.paths import REPO

ELSEWHERE = "/nowhere/a-clone-on-the-machine-that-graded"


def moved_config(folder: Path) -> Path:
    """The config a clone at ELSEWHERE would have written, in ``folder`` (a course copied from that machine)."""
    text = course.config_text(Limits(cell_timeout_s=77))
    assert str(REPO) in text, "the config names the repository that wrote it"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(text.replace(str(REPO), ELSEWHERE))
    return folder


def load(folder: Path):
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(folder)).load_config()


def test_a_course_from_another_machine_loads_the_settings_of_the_clone_nbgrader_runs_from(tmp_path):
    cfg = load(moved_config(tmp_path / "course"))
    assert cfg.GenerateFeedback.preprocessors[0].__name__ == "HideHiddenTests"
    assert cfg.Execute.timeout == 77 and cfg.IgnorePattern.enabled is True


def test_without_the_settings_nbgrader_is_stopped_not_left_to_its_defaults(tmp_path, monkeypatch):
    """traitlets logs and skips a config that raises an Exception (nbgrader then runs with its defaults, and its
    feedback shows the hidden tests); a SystemExit stops it, with a message that says what to do."""
    folder = moved_config(tmp_path / "course")
    monkeypatch.setitem(sys.modules, "gpucourse", None)  # a Python without the course's package: find_spec says None
    with pytest.raises(SystemExit) as stopped:
        load(folder)
    message = str(stopped.value)
    assert ELSEWHERE in message and str(folder / "nbgrader_config.py") in message
    assert "hidden tests" in message and "scripts/setup.sh" in message


def test_the_settings_are_never_looked_for_next_to_the_course(tmp_path, monkeypatch):
    """A folder above the course (``/tmp`` on a shared machine) is not a place to run code from."""
    folder = moved_config(tmp_path / "course")
    planted = tmp_path / "graders" / "nbgrader_config.py"
    planted.parent.mkdir()
    planted.write_text("raise RuntimeError('planted settings ran')\n")
    monkeypatch.setitem(sys.modules, "gpucourse", None)
    with pytest.raises(SystemExit):
        load(folder)


def released():
    return authoring.notebook([
        authoring.md("intro", "# A notebook"),
        authoring.solution("answer", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                                     "    ### END SOLUTION\n"),
        authoring.tests("test_double", 2, "assert double(2) == 4\n### BEGIN HIDDEN TESTS\nassert double(3) == 6\n"
                                          "### END HIDDEN TESTS\n"),
    ])


def guarded_graded_copy(tmp_path: Path):
    """A run folder whose graded notebook has the guard cells, as ``execute`` leaves it, read-only as nbgrader does."""
    nb = released()
    tests = [nbtools.grade_id(c) for c in nb.cells if nbtools.is_test_cell(c)]
    sources = guard_cells.guard_sources("tok", {"trusted_sources": [], "sandboxed": False}, tests)
    guarded = guard_cells.insert_guards(copy.deepcopy(nb), sources)
    for cell in guarded.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"ran {cell.id}\n")]
    run = tmp_path / "run"
    graded = run / "course" / "autograded" / "s" / "nb" / "nb.ipynb"
    graded.parent.mkdir(parents=True)
    nbformat.write(guarded, str(graded))
    graded.chmod(0o444)
    return run, guarded, sources


def test_the_published_graded_copy_shows_each_guard_cell_as_one_line(tmp_path, monkeypatch):
    run, guarded, sources = guarded_graded_copy(tmp_path)
    assert len(sources["top"].splitlines()) > 500, "the install cell is the long one"
    monkeypatch.setattr(publish, "_publish_grades", lambda *a: None)  # the gradebook's side: test_grading_steps.py
    root = tmp_path / "course"
    publish._publish(run, root, "s", "nb", intake.Intake("nb", path=None, nb=released(), folder=tmp_path / "in"))

    path = root / "autograded" / "s" / "nb" / "nb.ipynb"
    shown = nbtools.read(path)
    assert [c.id for c in shown.cells] == [c.id for c in guarded.cells], "every cell in its place"
    for before, after in zip(guarded.cells, shown.cells, strict=True):
        assert after.get("outputs") == before.get("outputs") and after.metadata == before.metadata
        if before.metadata.get("grader_guard"):
            assert len(after.source.splitlines()) == 1, after.source[:300]
            assert f"({len(before.source.splitlines())} lines" in after.source
        else:
            assert after.source == before.source, "the student's cells and the tests are as graded"
    assert shown.cells[0].metadata.get("grader_guard"), "the first cell is the folded guard"
    assert not stat.S_IMODE(path.stat().st_mode) & 0o222, "read-only, as nbgrader leaves a graded copy"
    # the student's feedback still drops the grader's cells
    assert not any(c.metadata.get("grader_guard") for c in clean_for_student(shown).cells)
