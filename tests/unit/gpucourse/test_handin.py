"""The hand-in check without a kernel (gpucourse.handin, handin_cells, handin_open, handin_run's reading): the structure
of broken hand-ins (small edits of the released notebooks), what the generated data holds and does not hold, the
verdict's last line, reading the open notebook on Colab and in Jupyter, and files that are no course notebook."""

from __future__ import annotations

import copy
import json
import sys
import types

import nbformat
import pytest

from gpucourse import handin, handin_open, handin_run
from gpucourse.handin_cells import HANDIN_ID, NotCourseNotebook, grade_id, structure_entry
from gpucourse.released_cells import NOTEBOOKS
from graders import nbtools
from graders.paths import NOTEBOOKS as NOTEBOOK_DIR
from graders.paths import SAMPLES, SOLUTIONS, notebook_names

NAME = "01_devices"


def released(name: str = NAME) -> dict:
    return json.loads((NOTEBOOK_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))


def correct(name: str = NAME) -> dict:
    return json.loads((SAMPLES / "correct" / f"{name}.ipynb").read_text(encoding="utf-8"))


def index_of(nb: dict, gid: str) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == gid)


def problems(nb: dict, name: str = NAME) -> list[str]:
    return [p.text for p in handin.structure_problems(nb, name)]


# -- the generated data --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", notebook_names())
def test_the_data_is_the_release_nbgrader_made(name):
    """gpucourse/released_cells.py, made from solutions/, is what nbgrader released into notebooks/."""
    nb = released(name)
    assert [structure_entry(c) for c in nb["cells"] if grade_id(c)] == NOTEBOOKS[name]["cells"]
    assert handin.release_of(nb) == NOTEBOOKS[name]["release"]
    assert grade_id(nb["cells"][-1]) == HANDIN_ID


def test_no_answer_and_no_hidden_test_is_in_what_students_install():
    """Every line of a reference answer or of a hidden test that is not also in the released notebook (a skeleton's
    `def`, a docstring) is absent from the generated data and from the hand-in modules."""
    shipped = "".join((SOLUTIONS.parent / "gpucourse" / f).read_text(encoding="utf-8")
                      for f in ("released_cells.py", "handin.py", "handin_cells.py", "handin_run.py", "handin_open.py"))
    checked = 0
    for name in notebook_names():
        public = {line.strip() for c in released(name)["cells"] for line in handin.source_of(c).splitlines()}
        for cell in nbtools.read(SOLUTIONS / f"{name}.ipynb").cells:
            secret = [m.group(1) for m in nbtools.SOLUTION_BLOCK.finditer(cell.source)]
            secret += [m.group(0) for m in nbtools.HIDDEN_BLOCK.finditer(cell.source)]
            for line in "\n".join(secret).splitlines():
                line = line.strip()
                if len(line) > 25 and line not in public and not line.startswith("###"):
                    checked += 1
                    assert line not in shipped, f"{name}: {line!r} is shipped to students"
    assert checked > 100  # the test looked at answers and hidden tests


# -- the structure of broken hand-ins ------------------------------------------------------------------------------
@pytest.mark.parametrize("student", ["correct", "untouched", "mistakes"])
@pytest.mark.parametrize("name", notebook_names())
def test_the_samples_are_as_released(student, name):
    nb = json.loads((SAMPLES / student / f"{name}.ipynb").read_text(encoding="utf-8"))
    assert handin.identify(nb, "x.ipynb") == name
    assert problems(nb, name) == []


def test_a_deleted_check_cell():
    nb = correct()
    del nb["cells"][index_of(nb, "test_to_device")]
    assert problems(nb) == [f"the check cell `test_to_device` is missing (deleted?): put it back from the released "
                            f"{NAME}.ipynb (Edit > Undo Delete Cells, or copy it)"]


def test_a_cell_pasted_twice():
    nb = correct()
    at = index_of(nb, "to_device")
    nb["cells"].insert(at + 1, copy.deepcopy(nb["cells"][at]))
    [found] = problems(nb)
    assert f"the answer cell `to_device` appears 2 times (cells {at + 1}, {at + 2})" in found


def test_an_edited_check_cell():
    nb = correct()
    cell = nb["cells"][index_of(nb, "test_evaluate")]
    cell["source"] = "".join(cell["source"]).replace("check.", "# check.", 1)
    [found] = problems(nb)
    assert found.startswith("the check cell `test_evaluate`") and "was changed" in found


def test_whitespace_and_a_colab_save_are_no_edit():
    """Colab stores sources as lists of lines; trailing blanks and blank lines are not an edit."""
    nb = correct()
    for cell in nb["cells"]:
        text = handin.source_of(cell)
        cell["source"] = [line + "  \n" for line in text.splitlines()] + ["\n"]
    assert problems(nb) == []


def test_a_check_cell_turned_into_markdown():
    nb = correct()
    nb["cells"][index_of(nb, "test_pick_device")]["cell_type"] = "markdown"
    [found] = problems(nb)
    assert "turned into a markdown cell" in found


def test_an_answer_outside_its_answer_cell():
    nb = correct()
    at = index_of(nb, "evaluate")
    answer = nb["cells"][at]
    nb["cells"].insert(at + 1, {"cell_type": "code", "metadata": {}, "source": answer["source"], "outputs": [],
                                "execution_count": None, "id": "mine"})
    answer["source"] = "# moved below\n"
    [found] = problems(nb)
    assert f"`evaluate` is defined in cell {at + 2}, not in its answer cell `evaluate`" in found


def test_cells_the_student_added_are_fine():
    nb = correct()
    for at in (3, 10, len(nb["cells"]) - 1):
        nb["cells"].insert(at, {"cell_type": "code", "metadata": {}, "source": "z = 1", "outputs": [],
                                "execution_count": None})
    nb["cells"].insert(5, {"cell_type": "markdown", "metadata": {}, "source": "my notes"})
    assert problems(nb) == []


def test_an_answer_written_inside_the_released_with_block():
    """04's CUDA_AUTOCAST_ANSWERS may be set inside the `with` block the skeleton has."""
    nb = correct("04_autocast")
    cell = nb["cells"][index_of(nb, "CUDA_AUTOCAST_ANSWERS")]
    cell["source"] = ("import contextlib\nwith contextlib.suppress(NotImplementedError):\n"
                      "    CUDA_AUTOCAST_ANSWERS = {}\n")
    assert problems(nb, "04_autocast") == []


def test_a_notebook_of_an_earlier_release():
    """Before this release no notebook had the hand-in cell; a later one names another release in it."""
    nb = correct()
    del nb["cells"][-1]
    [found] = problems(nb)
    assert found.startswith("this notebook comes from a release without this hand-in check")
    assert f"open the current {NAME}.ipynb" in found
    nb = correct()
    last = handin.source_of(nb["cells"][-1])
    nb["cells"][-1]["source"] = last.replace(NOTEBOOKS[NAME]["release"], "0.4.0-0123456789")
    [found] = problems(nb)
    assert found.startswith("this notebook comes from release 0.4.0-0123456789")
    assert handin.identify(nb) == NAME


# -- files that are no notebook of this course ---------------------------------------------------------------------
@pytest.mark.parametrize("content, said", [
    ("just text\n", "not a Jupyter notebook (not JSON)"),
    ('{"a": 1}', "not a Jupyter notebook (nbformat 4)"),
    (nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])),
     "not a notebook of this course"),
])
def test_a_file_that_is_no_course_notebook_is_one_line_and_status_2(tmp_path, capsys, content, said):
    from graders.__main__ import main

    path = tmp_path / "thing.ipynb"
    path.write_text(content, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and said in out[0] and "Traceback" not in out[0]


def test_a_missing_file_is_status_2(tmp_path, capsys):
    assert handin.check_file(tmp_path / "none.ipynb") == 2
    assert "no such file" in capsys.readouterr().out


# -- reading what a run said (handin_run) --------------------------------------------------------------------------
def executed(outputs: dict) -> nbformat.NotebookNode:
    """The released 01 with ``outputs`` ({grade id or cell id: outputs}) as if it had run."""
    nb = nbformat.from_dict(released())
    for cell in nb.cells:
        key = grade_id(cell) or cell.get("id")
        if cell.cell_type == "code":
            cell.outputs = [nbformat.from_dict(o) for o in outputs.get(key, [])]
    return nb


def stdout(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def error(ename: str, evalue: str, traceback: list[str]) -> dict:
    return {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": traceback}


def test_reading_pass_fail_todo_and_the_first_error():
    nb = executed({
        "test_pick_device": [stdout("[PASS] pick_device: the visible checks pass.\n")],
        "test_to_device": [error("CheckFailed", "A dict must come back as a dict.",
                                 ["[FAIL] to_device: A dict must come back as a dict."])],
        "test_train_one_epoch": [error("Unanswered", "not answered yet.",
                                       ["[TODO] train_one_epoch: not answered yet."])],
        "test_evaluate": [error("NameError", "name 'copy' is not defined",
                                ["\x1b[31mNameError\x1b[0m Traceback", "Cell \x1b[32mIn[20], line 4\x1b[0m", "x"])],
        "s4-plot": [error("NameError", "name 'history' is not defined", ["Cell In[31], line 2", "..."])],
    })
    outcome = handin_run.read_outcome(nb, len(nb.cells))
    assert outcome.check_lines == ["[PASS] pick_device", "[FAIL] to_device: A dict must come back as a dict.",
                                   "[TODO] train_one_epoch: not answered yet.",
                                   "[FAIL] test_evaluate: NameError: name 'copy' is not defined (line 4)"]
    assert outcome.todo == ["train_one_epoch"] and outcome.failed == ["to_device", "test_evaluate"]
    at = [c.get("id") for c in nb.cells].index("s4-plot") + 1
    assert outcome.first_error == f"cell {at}, `s4-plot`: NameError: name 'history' is not defined (line 2)"
    assert outcome.first_bad.startswith("[FAIL] to_device: A dict must come back as a dict. (cell ")


def test_an_error_above_every_check_is_what_to_fix_first():
    nb = executed({"pick_device": [error("ZeroDivisionError", "division by zero", ["Cell In[9], line 1"])],
                   "test_pick_device": [stdout("[PASS] pick_device: ok\n")]})
    outcome = handin_run.read_outcome(nb, len(nb.cells))
    at = index_of(released(), "pick_device") + 1
    assert outcome.first_bad == (f"cell {at}, answer cell `pick_device` raised ZeroDivisionError: division by zero "
                                 "(line 1)")


def test_the_copy_is_quick_installs_nothing_and_skips_its_own_hand_in_cell(monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "/x/01_devices.ipynb")
    nb = released()
    env = handin_run.kernel_env(nb)
    assert env["COURSE_QUICK"] == "1" and env[handin.NESTED_ENV] == "1" and "JPY_SESSION_NAME" not in env
    assert env["GPUCOURSE_TRIED"].startswith("git+https://")  # the set-up cell's guard: no pip install
    copy_ = handin_run.prepared(nb)
    assert copy_.cells[-1].cell_type == "raw" and len(copy_.cells) == len(nb["cells"])


def test_the_set_up_installs_nothing_in_the_checks_run(monkeypatch):
    from gpucourse import bootstrap

    monkeypatch.setenv(handin.NESTED_ENV, "1")
    with pytest.raises(SystemExit, match="installs nothing"):
        bootstrap.install_missing((("surely_not_a_module_x", "surely-not-a-package-x"),))


# -- the verdict's last line ---------------------------------------------------------------------------------------
def ready_report(filename: str) -> handin.Report:
    report = handin.Report(NAME, filename)
    handin._first(report, handin_run.Outcome())
    return report


def test_ready_names_the_file_to_hand_in_and_how():
    assert ready_report("01_devices.ipynb").verdict() == ("READY to hand in as `01_devices.ipynb`: upload it where "
                                                          "your instructor asked.")
    assert "(this file is `Copy of 01_devices.ipynb`)" in ready_report("/d/Copy of 01_devices.ipynb").verdict()
    on_colab = ready_report("Copy of 01_devices.ipynb").verdict(colab_name="Copy of 01_devices.ipynb")
    assert on_colab.startswith("READY to hand in: File > Download > Download .ipynb, save it as `01_devices.ipynb` "
                               "(Colab names it `Copy of 01_devices.ipynb`: rename it)")


def test_not_ready_says_what_to_fix_first():
    report = handin.Report(NAME, "01_devices.ipynb", [handin.Problem(3, "the check cell `x` is missing")])
    handin._first(report, handin_run.Outcome(first_bad="[FAIL] y: hint"))
    assert not report.ready
    assert report.verdict() == "NOT READY: fix the notebook's structure first: the check cell `x` is missing."
    report = handin.Report(NAME, "01_devices.ipynb")
    handin._first(report, handin_run.Outcome(first_bad="exercise `a` is still to do (cell 7)", todo=["a", "b"]))
    assert report.verdict() == "NOT READY: exercise `a` is still to do (cell 7); 2 exercises are still to do: a, b."


# -- the notebook as saved: Colab, Jupyter, the grader -------------------------------------------------------------
def test_on_colab_the_open_notebook_is_read_through_colabs_own_request(monkeypatch):
    asked = []
    nb = correct()
    nb["metadata"]["colab"]["name"] = "Copy of 01_devices.ipynb"
    message = types.SimpleNamespace(blocking_request=lambda kind, request="", timeout_sec=None:
                                    asked.append(kind) or {"ipynb": nb})
    colab = types.ModuleType("google.colab")
    colab._message = message
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab._message", message)
    opened = handin_open.open_notebook(NAME)
    assert asked == ["get_ipynb"] and opened.nb is nb and opened.colab_name == "Copy of 01_devices.ipynb"


def test_in_jupyter_the_file_the_kernel_was_started_for(tmp_path, monkeypatch):
    path = tmp_path / "renamed.ipynb"
    path.write_text(json.dumps(correct()), encoding="utf-8")
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    opened = handin_open.from_file(NAME, folder=tmp_path, namespace={}, recent=[])
    assert opened.filename == str(path) and opened.stale is None
    assert opened.said[0].startswith(f"Checking the file {path} as saved at ")


def test_in_jupyter_the_newest_file_named_like_it(tmp_path, monkeypatch):
    import os

    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    for index, name in enumerate(["01_devices.ipynb", "Copy of 01_devices.ipynb"]):
        (tmp_path / name).write_text(json.dumps(correct()), encoding="utf-8")
        os.utime(tmp_path / name, (1000 + index, 1000 + index))
    opened = handin_open.from_file(NAME, folder=tmp_path, namespace={}, recent=[])
    assert opened.filename.endswith("Copy of 01_devices.ipynb") and "Several files" in opened.said[1]
    with pytest.raises(handin_open.NotFound, match="could not find this notebook's file"):
        handin_open.from_file("02_transfers", folder=tmp_path, namespace={}, recent=[])


def test_a_file_older_than_the_open_notebook_is_said(tmp_path, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    nb = correct()
    (tmp_path / "01_devices.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    answer = handin.source_of(nb["cells"][index_of(nb, "pick_device")])
    assert handin_open.from_file(NAME, folder=tmp_path, namespace={}, recent=[answer]).stale is None
    opened = handin_open.from_file(NAME, folder=tmp_path, namespace={}, recent=[answer + "\nprint('new')"])
    assert opened.stale.startswith("the open notebook may have changes the file does not have yet")
    report = handin.check(opened.nb, opened.filename, run=False, stale=opened.stale, echo=lambda line: None)
    assert report.lines()[-2].startswith("Note: the open notebook may have changes")


def test_under_the_grader_the_hand_in_cell_says_one_line_and_runs_nothing(monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(handin, "check", lambda *a, **k: pytest.fail("ran the check under the grader"))
    assert handin.check_this_notebook(NAME, release=NOTEBOOKS[NAME]["release"]) is None
    assert capsys.readouterr().out.strip().splitlines() == [
        "[hand-in check] skipped: this is the grader's (or the check's own) run of the notebook."]


def test_identify_by_graded_cells_and_refuse_others():
    nb = correct("05_gradscaler")
    del nb["cells"][-1]  # no hand-in cell: named by its graded cells
    assert handin.identify(nb, "whatever.ipynb") == "05_gradscaler"
    with pytest.raises(NotCourseNotebook):
        handin.identify({"cells": [], "nbformat": 4}, "notes.ipynb")


def test_the_readers_book_has_no_hand_in_check():
    from graders.authoring.book_pages import reader_copy

    nb = nbtools.read(SOLUTIONS / f"{NAME}.ipynb")
    assert grade_id(nb.cells[-1]) == HANDIN_ID
    assert not [c for c in reader_copy(nb).cells if "handin" in c.get("id", "")]
