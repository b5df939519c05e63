"""The student's feedback says why each test cell lost points (issue 33, deliverable 3): what its outputs do not
show (points a tamper check took under a visible [PASS], a score withheld for review) is added as one
``[POINTS]`` line from the results folder's grades_detail.csv, by the preprocessor nbgrader's generate_feedback
runs (graders/export/preprocessors.py), and no hidden test's code comes with it. The reasons themselves:
tests/unit/grading/test_loss_reasons.py."""

from __future__ import annotations

import json

import nbformat

from graders.export import feedback
from graders.export.preprocessors import HideHiddenTests
from graders.grading import reasons, review
from graders.grading.graded_folder import write_csv
from graders.grading.row import Row
from tests.helpers.loss_reasons import FINDING, HIDDEN_CODE, graded_notebook, scored


def _resources(tmp_path, student="alice") -> dict:
    # `autograde --out DIR` keeps the gradebook in DIR/course and grades_detail.csv in DIR
    return {"nbgrader": {"db_url": f"sqlite:///{tmp_path / 'course' / 'gradebook.db'}", "student": student,
                         "notebook": "01_devices"}}


def _graded_with_points_taken(tmp_path):
    """alice's graded notebook, its t_pass points taken by a tamper check (pending review), into grades_detail.csv."""
    nb = graded_notebook()
    cells = scored(nb)
    finding = review.Review("d1", withheld=False, evidence=[FINDING], cells=cells, untrusted=["t_pass"],
                            reasons=reasons.notebook_reasons(nb, cells), taken={"t_pass": FINDING})
    row = review.apply(Row("alice", "01_devices", 2.0, 14.0, "graded", cells=cells), finding, [])
    write_csv([row], tmp_path)
    return nb, row


def _texts(cell) -> list[str]:
    return [o.get("text", "") for o in cell.outputs if o.output_type == "stream"]


def test_points_taken_under_a_visible_pass_are_explained_on_the_students_page(tmp_path):
    nb, row = _graded_with_points_taken(tmp_path)
    page, _ = HideHiddenTests().preprocess(nbformat.from_dict(nb), _resources(tmp_path))
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in page.cells}
    note = feedback.LOST_NOTE.format(grade_id="t_pass")
    assert [t for t in _texts(cells["t_pass"]) if t.startswith(note)] == [note + row.lost()["t_pass"] + "\n"]
    assert FINDING in row.lost()["t_pass"]
    # a cell whose error already says why gets nothing more: the page shows its [FAIL] line or requirement
    for gid in ("t_visible", "t_requirement", "t_message", "t_crash"):
        assert not any(t.startswith("[POINTS]") for t in _texts(cells[gid])), gid
    again, _ = HideHiddenTests().preprocess(page, _resources(tmp_path))
    assert again == page, "generate_feedback may run on a page already cleaned (feedback cleans it first)"
    other, _ = HideHiddenTests().preprocess(nbformat.from_dict(nb), _resources(tmp_path, student="bob"))
    assert not any("[POINTS]" in t for c in other.cells for t in _texts(c)), "only alice's reasons are alice's"


def test_the_page_with_its_reasons_shows_no_hidden_test_code(tmp_path):
    nb, _ = _graded_with_points_taken(tmp_path)
    secret = feedback.hidden_lines(nb)
    assert HIDDEN_CODE in secret, "there is hidden code to leak: the graded copy keeps it"
    page, _ = HideHiddenTests().preprocess(nbformat.from_dict(nb), _resources(tmp_path))
    assert feedback.leaks(json.dumps(page), secret) == []


def test_without_a_detail_file_the_page_is_only_cleaned(tmp_path):
    nb = graded_notebook()
    page, _ = HideHiddenTests().preprocess(nbformat.from_dict(nb), _resources(tmp_path))
    assert page == feedback.clean_for_student(nb)
