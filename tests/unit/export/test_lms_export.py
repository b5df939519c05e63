"""LMS export (graders.export.lms): Canvas, Moodle and generic CSVs from nbgrader's gradebook.

The gradebook is built with nbgrader's own API: two students, two notebooks (each its own
assignment, as in this course); alice's second notebook is late and her first has a manual grade
given "in the formgrader"; bob's second notebook is under review (flagged) and must not export
as a number. The plugin in a real ``nbgrader export``: tests/e2e/export/test_lms_export_e2e.py.
"""

from __future__ import annotations

import pytest

from graders import __main__ as cli
from graders.export.lms import CanvasExport, LmsExport, MoodleExport
from graders.paths import COURSE_ID
from tests.helpers.gradebooks import DUE, csv_lines, export, export_course


@pytest.fixture
def course(tmp_path):
    return export_course(tmp_path / "course")


def test_canvas_file_has_canvas_columns_and_the_right_numbers(course, tmp_path):
    out = tmp_path / "canvas.csv"
    plugin = export(CanvasExport, course, out, due=DUE)
    rows = csv_lines(out)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01_devices", "02_transfers",
                       "Final Points"]
    assert rows[1] == ["Points Possible", "", "", "", "", "5", "5", "10"]
    by_id = {r[1]: r for r in rows[2:]}
    assert by_id["9001"] == ["Adams, Alice", "9001", "", "", "", "4.5", "5", "9.5"]   # manual grade counted
    assert by_id["9002"] == ["Baker, Bob", "9002", "", "", "", "2", "", "2"]          # review: empty
    assert any("bob 02_transfers" in w and "review" in w for w in plugin.warnings)
    late = {(r[0], r[2]): r[5] for r in csv_lines(tmp_path / "canvas_lateness.csv")[1:]}
    assert late == {("alice", "01_devices"): "0", ("alice", "02_transfers"): "120",
                    ("bob", "01_devices"): "0", ("bob", "02_transfers"): "0"}


def test_moodle_file_maps_by_email_and_keeps_lateness_apart_from_scores(course, tmp_path):
    # Issue 23 changed this expectation: the old file wrote nbgrader's student id as Moodle's `Username`
    # (a guess Moodle aborts the whole import on). The key column is now a user field every row has (here the
    # email address), named first; a late yes/no per notebook and each person's roster status follow.
    out = tmp_path / "moodle.csv"
    plugin = export(MoodleExport, course, out, due=DUE, due_by_notebook={"01_devices": "2026-12-15T19:00"})
    rows = csv_lines(out)
    assert rows[0] == ["Email address", "Full name", "01_devices", "02_transfers", "Total",
                       "01_devices minutes late", "02_transfers minutes late", "01_devices late", "02_transfers late",
                       "Status"]
    by_user = {r[0]: r for r in rows[1:]}
    assert by_user["alice@uni.example"] == ["alice@uni.example", "Alice Adams", "4.5", "5", "9.5", "60", "120",
                                            "yes", "yes", "no roster given"]
    assert by_user["bob@uni.example"] == ["bob@uni.example", "Bob Baker", "2", "", "2", "60", "0", "yes", "no",
                                          "no roster given"]
    assert any("Map from 'Email address' to 'email address'" in w for w in plugin.warnings)


def test_a_failed_run_or_missing_grade_is_left_empty_and_warned(course, tmp_path):
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        g = gb.find_grade("devices_test", "01_devices", "01_devices", "alice")
        g.auto_score, g.needs_manual_grade = None, True   # what a failed autograde leaves
        gb.add_student("carol")                             # handed nothing in
        gb.db.commit()
    plugin = export(LmsExport, course, tmp_path / "generic.csv")
    rows = {r[0]: r for r in csv_lines(tmp_path / "generic.csv")[1:]}
    assert rows["alice"][4:7] == ["", "5", "5"]
    assert rows["carol"][4:7] == ["", "", "0"]
    assert {w.split(":")[0] for w in plugin.warnings} >= {"alice 01_devices", "carol 01_devices", "bob 02_transfers"}
    # no due date given, none in the gradebook: minutes late unknown; 02_transfers' late yes/no is the LMS's own
    # flag from the manifest (late=true), 01_devices has none
    assert rows["alice"][7:11] == ["", "", "", "yes"]


def test_python_m_graders_export_command(course, tmp_path, capsys):
    out = tmp_path / "m.csv"
    assert cli.main(["export", str(course), "--lms", "moodle", "--due", DUE, "--due", "02_transfers=2026-12-17T00:00",
                     "--out", str(out)]) == 0
    header, *body = csv_lines(out)
    rows = {r[0]: r for r in body}
    assert rows["alice@uni.example"][header.index("02_transfers minutes late")] == "0"  # the per-notebook due wins
    assert "WARNING bob 02_transfers" in capsys.readouterr().out
    assert cli.main(["export", str(course), "--due", "tomorrow", "--out", str(out)]) == 2


