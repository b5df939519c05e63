"""Intake and the tampering checks, without running nbgrader (fast)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import os
import zipfile

import pytest

from graders import nbtools
from graders.authoring.samples import reference_answers, submission
from graders.export import feedback
from graders.grading import guard_cells, guard_log, reasons, scan
from graders.grading.watch import FileWatch
from graders.intake import student_files as intake
from graders.intake.files import loads
from graders.intake.repair import repair
from graders.limits import Limits
from graders.paths import NOTEBOOKS, SOLUTIONS, notebook_names
from tests.helpers import adversarial

NAME = "01_devices"


def release():
    return nbtools.read(NOTEBOOKS / f"{NAME}.ipynb")


def graded_ids(nb):
    return [(nbtools.grade_id(c), c.cell_type) for c in nb.cells if nbtools.grade_id(c)]


# -- names and files --------------------------------------------------------------------------------
@pytest.mark.parametrize("filename", ["01_devices.ipynb", "Copy of 01_devices.ipynb", "01_devices (1).ipynb",
                                      "Copy of 01_Devices (2).ipynb", "01-devices.ipynb", "01_devices.ipynb.txt",
                                      "01_devices - Copy.ipynb", "devices.ipynb"])
def test_renamed_files_match(filename):
    assert intake.name_matches(filename, NAME)


def test_other_notebooks_do_not_match():
    assert not intake.name_matches("02_transfers.ipynb", NAME)
    assert not intake.name_matches("Untitled3.ipynb", NAME)


def test_newest_of_several_downloads_is_graded(tmp_path):
    old, new = tmp_path / f"{NAME}.ipynb", tmp_path / f"{NAME} (1).ipynb"
    old.write_text("{}")
    new.write_text("{}")
    os.utime(old, (1e9, 1e9))
    pick, notes = intake.choose([old, new], NAME)
    assert pick == new and "several files" in notes[0]


def test_zip_members_are_read_in_memory_with_limits(tmp_path, monkeypatch):
    folder = tmp_path / "s"
    folder.mkdir()
    nb = submission(NAME, reference_answers(NAME))
    with zipfile.ZipFile(folder / "hand-in.zip", "w") as zf:
        zf.writestr(f"../../evil/{NAME}.ipynb", nbtools_text(nb))  # a path that climbs out: never extracted
        zf.writestr("__MACOSX/._x.ipynb", "junk")
        zf.writestr("notes.txt", "hello")
    items = intake.intake_student(folder, [NAME])
    assert items[NAME].nb is not None and items[NAME].problem is None
    assert "hand-in.zip:../../evil/01_devices.ipynb" in items[NAME].notes[0]
    assert not (tmp_path.parent / "evil").exists()
    items = intake.intake_student(folder, [NAME], limits=Limits(max_unzipped_mib=0.001))  # the run's limits
    assert "over the limit" in items[NAME].problem or "more than the limit" in items[NAME].problem
    monkeypatch.setenv("GRADER_MAX_UNZIPPED_MIB", "0.001")  # or the environment's, read where none is given
    items = intake.intake_student(folder, [NAME])
    assert "over the limit" in items[NAME].problem or "more than the limit" in items[NAME].problem


def test_a_bad_zip_says_so(tmp_path):
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really")
    items = intake.intake_student(tmp_path, [NAME])
    assert "missing" in items[NAME].problem and "could not open broken.zip" in items[NAME].problem


@pytest.mark.parametrize("data,says", [(b"", "empty"), (b"   \n", "blank"), (b'{"cells": [', "not valid JSON"),
                                       (b"[1, 2]", "not a Jupyter notebook"), (b'{"a": 1}', "not a Jupyter")])
def test_unreadable_files_give_a_reason(data, says):
    nb, problem = loads(data)
    assert nb is None and says in problem


def test_untitled_file_matched_by_content(tmp_path):
    nbtools.write(submission(NAME, reference_answers(NAME)), tmp_path / "Untitled3.ipynb")
    items = intake.intake_student(tmp_path, [NAME, "02_transfers"])
    assert items[NAME].problem is None and "Untitled3.ipynb" in items[NAME].notes[0]
    assert items["02_transfers"].problem.startswith("notebook missing")


# -- repairing cells ------------------------------------------------------------------------------
def test_intact_notebook_is_unchanged():
    nb = submission(NAME, reference_answers(NAME))
    before = graded_ids(nb)
    assert repair(nb, release()) == []
    assert graded_ids(nb) == before


def test_colab_save_is_matched_back():
    intact = submission(NAME, reference_answers(NAME))
    nb = adversarial.colab_save(intact)
    assert not graded_ids(nb)
    notes = repair(nb, release())
    assert graded_ids(nb) == graded_ids(intact)
    assert "marks were missing" in notes[0]
    answer = next(c for c in nb.cells if nbtools.grade_id(c) == "to_device")
    assert answer.source == reference_answers(NAME)["to_device"]
    assert answer.metadata["nbgrader"] == release().cells[[nbtools.grade_id(c) for c in release().cells]
                                                             .index("to_device")].metadata["nbgrader"]


def test_deleted_duplicated_markdown_and_renamed_test_cells():
    rel = release()
    nb = submission(NAME, reference_answers(NAME))
    ids = [nbtools.grade_id(c) for c in nb.cells]
    nb.cells[ids.index("test_evaluate")].metadata["nbgrader"]["grade_id"] = "hacked"
    nb.cells[ids.index("test_train_one_epoch")].cell_type = "markdown"
    nb.cells.insert(ids.index("test_pick_device") + 1, copy.deepcopy(nb.cells[ids.index("test_pick_device")]))
    del nb.cells[ids.index("test_to_device") + 1]
    notes = " | ".join(repair(nb, rel))
    assert graded_ids(nb) == graded_ids(rel)
    assert "'test_to_device' was missing" in notes and "hacked->test_evaluate" in notes
    assert "had become markdown" in notes
    gids = [nbtools.grade_id(c) for c in nb.cells if nbtools.grade_id(c)]
    assert len(gids) == len(set(gids))


def test_answer_without_metadata_in_a_moved_cell():
    nb = submission(NAME, reference_answers(NAME))
    ids = [nbtools.grade_id(c) for c in nb.cells]
    cell = nb.cells[ids.index("evaluate")]
    del cell.metadata["nbgrader"]
    repair(nb, release())
    assert [c for c in nb.cells if nbtools.grade_id(c) == "evaluate"][0].source == reference_answers(NAME)["evaluate"]


# -- static scan --------------------------------------------------------------------------------------
def _scan(code: str) -> list[str]:
    nb = submission(NAME, reference_answers(NAME))
    nb.cells.append(adversarial.code_cell(code))
    rel = release()
    trusted = {guard_cells.source_hash(c.source) for c in rel.cells if c.cell_type == "code"
               and not nbtools.is_solution_cell(c)}
    tests = [c.source for c in nbtools.read(SOLUTIONS / f"{NAME}.ipynb").cells if nbtools.is_test_cell(c)]
    return [f.what for f in scan.static_scan(nb, trusted, tests)]


@pytest.mark.parametrize("code,says", [
    ("torch.allclose = lambda *a, **k: True", "replaces torch.allclose"),
    ("import torch as T\nT.Tensor.__eq__ = lambda *a: True", "replaces T.Tensor.__eq__"),
    ("from gpucourse.checks import Check\nCheck.that = lambda *a: None", "replaces Check.that"),
    ("import builtins\nbuiltins.isinstance = lambda *a: True", "replaces builtins.isinstance"),
    ("def isinstance(a, b):\n    return True", "redefines the built-in isinstance"),
    ("AssertionError = Exception", "redefines the built-in AssertionError"),
    ("import sys\nsys.settrace(lambda *a: None)", "installs a trace function"),
    ("import sys\nsys.modules['gpucourse.checks'] = None", "writes into sys.modules"),
    ("setattr(torch, 'equal', lambda *a: True)", "calls setattr on torch"),
    ("import gc\ngc.get_objects()", "searches every object"),
    ("import ctypes", "imports ctypes"),
    ("from torch.utils.cpp_extension import load_inline", "native code"),
    ("import sys\ndef f():\n    return sys.modules['__main__']._expected", "reads the hidden tests' variable"),
    ("def f():\n    return _expected", "reads the hidden tests' variable _expected"),
    ("from gpucourse.testing import ModeProbe", "imports the tests' probes"),
    ("from unittest import mock\nmock.patch.object(torch, 'equal', lambda *a: True).start()", "patches objects"),
    ("import inspect\ninspect.currentframe().f_back", "inspects the caller's frames"),
])
def test_static_scan_flags_tampering(code, says):
    found = _scan(code)
    assert any(says in f for f in found), found


@pytest.mark.parametrize("code", [
    "torch.backends.cudnn.benchmark = True",
    "torch.backends.cuda.matmul.allow_tf32 = True",
    "max = 3\nprint(max)",
    "model = torch.nn.Linear(2, 2)\nmodel.weight.data.zero_()",
    "import numpy as np\nx = np.zeros(3)\nx[0] = 1",
])
def test_static_scan_leaves_ordinary_code_alone(code):
    assert _scan(code) == []


@pytest.mark.parametrize("name", notebook_names())
def test_reference_answers_are_never_flagged(name):
    rel = nbtools.read(NOTEBOOKS / f"{name}.ipynb")
    src = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    nb = submission(name, reference_answers(name))
    trusted = {guard_cells.source_hash(c.source) for c in rel.cells if c.cell_type == "code"
               and not nbtools.is_solution_cell(c)}
    assert scan.static_scan(nb, trusted, [c.source for c in src.cells if nbtools.is_test_cell(c)]) == []


# -- guard log, files, feedback, limits -----------------------------------------------------------------
def _line(key: bytes, record: dict) -> str:
    body = json.dumps(record, sort_keys=True)
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest() + " " + body


def test_guard_log_must_be_genuine_and_complete(tmp_path):
    key = b"k" * 16
    good = [{"seq": 0, "kind": "install"}, {"seq": 1, "kind": "before", "test": "t", "restored": []},
            {"seq": 2, "kind": "after", "test": "t", "changes": [], "events": []}]
    log = tmp_path / "g.log"
    log.write_text("\n".join(_line(key, r) for r in good) + "\n")
    assert guard_log.read_log(log, key, ["t"]).tampering == []
    log.write_text("\n".join(_line(key, r) for r in good[:2]) + "\nforged line\n")
    problems = " ".join(guard_log.read_log(log, key, ["t"]).tampering)
    assert "not written by the grader" in problems and "after t did not run" in problems
    changed = good[:2] + [dict(good[2], changes=["torch.allclose was replaced"])]
    log.write_text("\n".join(_line(key, r) for r in changed) + "\n")
    assert guard_log.read_log(log, key, ["t"]).per_test == {"t": ["torch.allclose was replaced"]}


def test_file_watch_reports_changes_and_writes_nothing(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "checks.py").write_text("GOOD = True\n")
    hooks = tmp_path / "site"
    hooks.mkdir()
    watch = FileWatch(deep=[pkg], shallow=[hooks])
    (pkg / "checks.py").write_text("GOOD = False\n")
    (hooks / "evil.pth").write_text("import os")
    changed = watch.check()
    assert any("checks.py was changed" in c for c in changed) and any("evil.pth was created" in c for c in changed)
    assert (pkg / "checks.py").read_text() == "GOOD = False\n"
    assert watch.check() == []


def test_feedback_copy_hides_hidden_tests():
    src = nbtools.read(SOLUTIONS / f"{NAME}.ipynb")
    nb = copy.deepcopy(src)
    test = next(c for c in nb.cells if nbtools.grade_id(c) == "test_evaluate")
    test.outputs = [{"output_type": "error", "ename": "AssertionError", "evalue": "accuracy over all examples",
                     "traceback": ["---> 25 assert abs(_acc - _expected) < 1e-9, 'accuracy over all examples'"]}]
    clean = feedback.clean_for_student(nb)
    text = json.dumps(clean)
    assert feedback.leaks(text, feedback.hidden_lines(src)) == []
    assert "accuracy over all examples" in text and feedback.HIDDEN_NOTE.strip() in text
    # nor in the reason grades_detail.csv, `review` and the feedback's [POINTS] line give for the lost points,
    # when the traceback quotes a line of the hidden tests' code
    secret = sorted(feedback.hidden_lines(src))
    test.outputs[0]["traceback"] = [f"\x1b[0;31m---> 25 {line}\x1b[0m" for line in secret]
    reason = reasons.notebook_reasons(nb, {"test_evaluate": (0.0, 2.0)})["test_evaluate"]
    assert secret and "accuracy over all examples" in reason and feedback.leaks(reason, set(secret)) == []
    assert feedback.leaks(json.dumps(test.outputs), set(secret)), "the check finds what the traceback quotes"


def test_a_hidden_line_also_in_visible_code_is_no_leak():
    # 03's hidden tests repeat `synchronize = _reference_timing.synchronize`, which the visible part
    # shows with a comment after it: every 03 feedback page used to be refused for it.
    secret = {"synchronize = _reference_timing.synchronize", "_durations = [_rng.uniform(15, 25), 1.0]"}
    visible = "synchronize = _reference_timing.synchronize  # time_ms is graded with a correct synchronize"
    page = f"<pre>{visible}</pre>"
    assert feedback.leaks(page, secret) == ["synchronize = _reference_timing.synchronize"]  # without context
    assert feedback.leaks(page, secret, shown_source=visible) == []
    leaked = page + "<pre>_durations = [_rng.uniform(15, 25), 1.0]</pre>"
    assert feedback.leaks(leaked, secret, shown_source=visible) == ["_durations = [_rng.uniform(15, 25), 1.0]"]


def test_limits_are_read_from_the_environment_given(monkeypatch):
    assert Limits.from_env({"GRADER_CELL_TIMEOUT_S": "7"}).cell_timeout_s == 7
    monkeypatch.setenv("GRADER_CELL_TIMEOUT_S", "7")
    assert Limits.from_env().cell_timeout_s == 7
    monkeypatch.delenv("GRADER_CELL_TIMEOUT_S")
    assert Limits.from_env().cell_timeout_s == 120
    assert {name for name, _, _ in Limits().describe()} >= {"GRADER_NOTEBOOK_WALL_S", "GRADER_MEMORY_GIB"}


def nbtools_text(nb) -> str:
    import nbformat
    return nbformat.writes(nb)
