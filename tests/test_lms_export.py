"""LMS export (graders.export.lms): Canvas, Moodle and generic CSVs from nbgrader's gradebook.

The gradebook is built with nbgrader's own API: two students, two notebooks (each its own
assignment, as in this course); alice's second notebook is late and her first has a manual grade
given "in the formgrader"; bob's second notebook is under review (flagged) and must not export
as a number. One test runs the plugin through real ``nbgrader export --exporter=...``.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graders import __main__ as cli
from graders.export.lms import CanvasExport, LmsExport, MoodleExport
from graders.paths import COURSE_ID, REPO

DUE = "2026-12-15T23:59"
ON_TIME = dt.datetime(2026, 12, 15, 20, 0)            # naive UTC, as nbgrader stores it
LATE = dt.datetime(2026, 12, 16, 1, 59)               # 120 minutes after DUE


def make_gradebook(root: Path) -> Path:
    from nbgrader.api import Gradebook

    root.mkdir(parents=True, exist_ok=True)
    db = root / "gradebook.db"
    with Gradebook(f"sqlite:///{db}", course_id=COURSE_ID) as gb:
        for name, cells in (("01_devices", [("devices_test", 3, "code"), ("devices_why", 2, "markdown")]),
                            ("02_transfers", [("transfers_test", 5, "code")])):
            gb.add_assignment(name)
            gb.add_notebook(name, name)
            for gid, points, kind in cells:
                gb.add_grade_cell(gid, name, name, max_score=points, cell_type=kind)
        gb.add_student("alice", first_name="Alice", last_name="Adams", email="alice@uni.example")
        gb.add_student("bob", first_name="Bob", last_name="Baker", email="bob@uni.example", lms_user_id="9002")
        for sid, name, when in (("alice", "01_devices", ON_TIME), ("alice", "02_transfers", LATE),
                                ("bob", "01_devices", ON_TIME), ("bob", "02_transfers", ON_TIME)):
            gb.add_submission(name, sid, timestamp=when)

        def grade(gid, nb, sid, auto=None, manual=None):
            g = gb.find_grade(gid, nb, nb, sid)
            g.auto_score, g.manual_score, g.needs_manual_grade = auto, manual, False
        grade("devices_test", "01_devices", "alice", auto=3)
        grade("devices_why", "01_devices", "alice", manual=1.5)      # the formgrader's manual grade
        grade("transfers_test", "02_transfers", "alice", auto=5)
        grade("devices_test", "01_devices", "bob", auto=2)
        grade("devices_why", "01_devices", "bob", manual=0)
        grade("transfers_test", "02_transfers", "bob", auto=5)
        gb.find_submission_notebook("02_transfers", "02_transfers", "bob").flagged = True  # under review
        gb.db.commit()
    return root


def read(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def export(cls, root: Path, out: Path, **kw):
    from nbgrader.api import Gradebook
    plugin = cls(to=str(out), manifest=str(root / "collect_manifest.csv"), **kw)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        plugin.export(gb)
    return plugin


@pytest.fixture
def course(tmp_path):
    root = make_gradebook(tmp_path / "course")
    with open(root / "collect_manifest.csv", "w", newline="") as f:  # alice came through Canvas
        writer = csv.DictWriter(f, ["student_id", "lms", "lms_id", "name", "email", "notebook", "submitted_at",
                                    "late"])
        writer.writeheader()
        writer.writerow({"student_id": "alice", "lms": "canvas", "lms_id": "9001", "name": "Alice Adams",
                         "email": "alice@uni.example", "notebook": "02_transfers",
                         "submitted_at": "2026-12-16T01:59:00+00:00", "late": "true"})
    return root


def test_canvas_file_has_canvas_columns_and_the_right_numbers(course, tmp_path):
    out = tmp_path / "canvas.csv"
    plugin = export(CanvasExport, course, out, due=DUE)
    rows = read(out)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01_devices", "02_transfers",
                       "Final Points"]
    assert rows[1] == ["Points Possible", "", "", "", "", "5", "5", "10"]
    by_id = {r[1]: r for r in rows[2:]}
    assert by_id["9001"] == ["Adams, Alice", "9001", "", "", "", "4.5", "5", "9.5"]   # manual grade counted
    assert by_id["9002"] == ["Baker, Bob", "9002", "", "", "", "2", "", "2"]          # review: empty
    assert any("bob 02_transfers" in w and "review" in w for w in plugin.warnings)
    late = {(r[0], r[2]): r[5] for r in read(tmp_path / "canvas_lateness.csv")[1:]}
    assert late == {("alice", "01_devices"): "0", ("alice", "02_transfers"): "120",
                    ("bob", "01_devices"): "0", ("bob", "02_transfers"): "0"}


def test_moodle_file_maps_by_email_and_keeps_lateness_apart_from_scores(course, tmp_path):
    # Issue 23 changed this expectation: the old file wrote nbgrader's student id as Moodle's `Username`
    # (a guess Moodle aborts the whole import on). The key column is now a user field every row has (here the
    # email address), named first; a late yes/no per notebook and each person's roster status follow.
    out = tmp_path / "moodle.csv"
    plugin = export(MoodleExport, course, out, due=DUE, due_by_notebook={"01_devices": "2026-12-15T19:00"})
    rows = read(out)
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
    rows = {r[0]: r for r in read(tmp_path / "generic.csv")[1:]}
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
    header, *body = read(out)
    rows = {r[0]: r for r in body}
    assert rows["alice@uni.example"][header.index("02_transfers minutes late")] == "0"  # the per-notebook due wins
    assert "WARNING bob 02_transfers" in capsys.readouterr().out
    assert cli.main(["export", str(course), "--due", "tomorrow", "--out", str(out)]) == 2


def _nbgrader_export(course: Path, *args: str, pythonpath: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "export", *args],
                          cwd=course, env=env, capture_output=True, text=True, timeout=300)


def test_native_nbgrader_export_with_the_plugin(course, tmp_path):
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"load_subconfig({str(REPO / 'graders' / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.ExportApp.plugin_class = 'graders.export.lms.CanvasExport'\n"
        f"c.CanvasExport.due = {DUE!r}\n")
    # the exporter named in the course's config: plain `nbgrader export`
    done = _nbgrader_export(course, "--to", "out.csv")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = read(course / "out.csv")
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert {r[1]: r[5:] for r in rows[2:]} == {"9001": ["4.5", "5", "9.5"], "9002": ["2", "", "2"]}
    assert "bob 02_transfers: left empty" in done.stderr
    assert read(course / "out_lateness.csv")[2][5] == "120"
    # on the command line nbgrader imports the class before reading the config: the repo on PYTHONPATH
    done = _nbgrader_export(course, "--exporter=graders.export.lms.MoodleExport", "--to", "m.csv",
                            pythonpath=str(REPO))
    assert done.returncode == 0, done.stdout + done.stderr
    assert read(course / "m.csv")[0][:2] == ["Email address", "Full name"]   # issue 23: no guessed Username
