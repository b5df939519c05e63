"""The hand-in check run for real (a copy of the notebook in a fresh kernel): the three samples' verdicts, and broken
hand-ins that only a run from the top shows (small edits of the released notebook and of the correct sample)."""

from __future__ import annotations

import copy
import json
import re

import pytest

from gpucourse import handin
from gpucourse.handin_cells import grade_id
from graders.paths import SAMPLES, notebook_names

NAME = "01_devices"


def sample(student: str, name: str = NAME) -> dict:
    return json.loads((SAMPLES / student / f"{name}.ipynb").read_text(encoding="utf-8"))


def index_of(nb: dict, key: str) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if key in (grade_id(c), c.get("id")))


def run(nb: dict, filename: str = f"{NAME}.ipynb", **options) -> tuple[handin.Report, list[str]]:
    said: list[str] = []
    report = handin.check(nb, filename, echo=said.append, **options)
    return report, said


@pytest.fixture(scope="module")
def sample_reports() -> dict:
    """Every sample checked once: {(student, notebook): (report, lines said)}."""
    return {(student, name): run(sample(student, name), f"{name}.ipynb")
            for student in ("correct", "untouched", "mistakes") for name in notebook_names()}


@pytest.mark.parametrize("name", notebook_names())
def test_the_correct_sample_is_ready(sample_reports, name):
    report, said = sample_reports["correct", name]
    assert report.ready, "\n".join(said)
    assert said[-1] == f"READY to hand in as `{name}.ipynb`: upload it where your instructor asked."
    assert report.exercises and all(line.startswith("[PASS]") for line in report.exercises)


@pytest.mark.parametrize("name", notebook_names())
def test_the_untouched_sample_names_the_exercises_to_do(sample_reports, name):
    report, said = sample_reports["untouched", name]
    assert not report.ready and report.todo and not report.failed, "\n".join(said)
    assert all(line.startswith("[TODO]") for line in report.exercises)
    assert said[-1].startswith(f"NOT READY: exercise `{report.todo[0]}` is still to do")


@pytest.mark.parametrize("name", notebook_names())
def test_the_mistakes_sample_names_its_failing_checks(sample_reports, name):
    report, said = sample_reports["mistakes", name]
    assert not report.ready and report.failed and not report.todo, "\n".join(said)
    first = next(line for line in report.exercises if line.startswith("[FAIL]"))
    assert said[-1].startswith(f"NOT READY: {first}")


# -- broken hand-ins only a run shows ------------------------------------------------------------------------------
def test_a_helper_defined_in_a_cell_later_deleted():
    """The answer calls a helper whose cell is gone: the check that runs it names the NameError and where."""
    nb = sample("correct")
    at = index_of(nb, "to_device")
    answer = nb["cells"][at]
    answer["source"] = handin.source_of(answer).replace('    """', '    _unused = _my_helper()\n    """', 1)
    report, said = run(nb)
    assert not report.ready
    assert "[FAIL] to_device: your code raised NameError: name '_my_helper' is not defined (in `to_device`" \
        in said[-1], "\n".join(said)


def test_a_demonstration_cell_deleted_leaves_a_name_no_cell_defines():
    nb = sample("correct")
    deleted = index_of(nb, "s4-train")
    del nb["cells"][deleted]
    report, said = run(nb)
    assert not report.ready
    assert re.match(rf"cell {deleted + 1}, `s4-plot`: NameError: name '\w+' is not defined \(line \d+\)",
                    report.first_error), "\n".join(said)
    assert said[-1].startswith(f"NOT READY: cell {deleted + 1}, `s4-plot` raised NameError")


def test_an_answer_that_raises_when_its_cell_runs():
    nb = sample("correct")
    at = index_of(nb, "pick_device")
    nb["cells"][at]["source"] = "import torch\nsettings = {}\nsettings['device'].lower()\n" + \
        handin.source_of(nb["cells"][at])
    report, said = run(nb)
    assert said[-1] == (f"NOT READY: cell {at + 1}, answer cell `pick_device` raised KeyError: 'device' (line 3)."), \
        "\n".join(said)


def test_saved_while_an_exercise_is_still_todo():
    nb = sample("correct")
    untouched = sample("untouched")
    at = index_of(nb, "evaluate")
    nb["cells"][at] = copy.deepcopy(untouched["cells"][at])
    report, said = run(nb)
    assert report.todo == ["evaluate"] and not report.failed
    assert "[TODO] evaluate: not answered yet." in "\n".join(said)
    assert said[-1].startswith("NOT READY: exercise `evaluate` is still to do")


def test_a_cell_that_runs_past_the_time_limit_stops_the_run():
    nb = sample("correct")
    at = index_of(nb, "s1-demo")
    nb["cells"].insert(at + 1, {"cell_type": "code", "metadata": {}, "source": "while True:\n    pass\n",
                                "outputs": [], "execution_count": None, "id": "mine"})
    report, said = run(nb, cell_timeout=15)
    assert said[-1] == (f"NOT READY: cell {at + 2} (`mine`) ran longer than the 15 s a cell may take here (an "
                        "endless loop?): the run stopped there."), "\n".join(said)


def test_an_edited_check_cell_is_not_ready_even_when_its_checks_pass():
    nb = sample("mistakes")
    at = index_of(nb, "test_pick_device")
    nb["cells"][at]["source"] = 'print("[PASS] pick_device: trust me")\n'
    report, said = run(nb)
    assert not report.ready
    assert said[-1].startswith("NOT READY: fix the notebook's structure first: the check cell `test_pick_device`")


def test_validate_one_block_per_file_and_the_exit_status(tmp_path, capsys):
    from graders.__main__ import main

    (tmp_path / "notes.txt").write_text("hello")
    ready = tmp_path / "Copy of 03_async_timing.ipynb"
    ready.write_text(json.dumps(sample("correct", "03_async_timing")))
    assert main(["validate", str(ready)]) == 0
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == ("READY to hand in as `03_async_timing.ipynb` (this file is `Copy of "
                                            "03_async_timing.ipynb`): upload it where your instructor asked.")
    assert main(["validate", str(ready), str(SAMPLES / "untouched" / "03_async_timing.ipynb")]) == 1
    blocks = capsys.readouterr().out.strip().split("\n\n")
    assert len(blocks) == 2
    assert blocks[1].splitlines()[-1].startswith("NOT READY: exercise `synchronize` is still to do")
    assert main(["validate", str(ready), str(tmp_path / "notes.txt")]) == 2
    blocks = capsys.readouterr().out.strip().split("\n\n")
    assert len(blocks) == 2 and blocks[1] == f"{tmp_path / 'notes.txt'}: not a Jupyter notebook (not JSON)"


def test_the_hand_in_cell_itself_in_a_kernel_started_for_the_file(tmp_path):
    """As JupyterLab runs it: the notebook's kernel was started for its file (jupyter_server's JPY_SESSION_NAME), the
    cells ran top to bottom, the last one reads the file, checks it, and ends with the verdict."""
    import os

    import nbformat

    from graders.kernel_client import notebook_client

    path = tmp_path / "Copy of 02_transfers.ipynb"
    path.write_text(json.dumps(sample("correct", "02_transfers")), encoding="utf-8")
    nb = nbformat.read(str(path), as_version=4)
    env = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION", "GPUCOURSE_HANDIN")}
    env.update(JPY_SESSION_NAME=str(path), COURSE_QUICK="1", MPLBACKEND="Agg")
    with notebook_client(nb, tmp_path, timeout=300, kernel_name="python3") as client:
        client.execute(env=env)
    said = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout").strip().splitlines()
    assert said[0].startswith(f"Checking the file {path} as saved at "), said
    assert said[-1] == ("READY to hand in as `02_transfers.ipynb` (this file is `Copy of 02_transfers.ipynb`): "
                        "upload it where your instructor asked."), said
