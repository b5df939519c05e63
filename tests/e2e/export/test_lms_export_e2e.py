"""``python -m graders export``'s plugin in a real ``nbgrader export`` run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from graders.paths import REPO
from tests.helpers.gradebooks import DUE, csv_lines, export_course


@pytest.fixture
def course(tmp_path):
    return export_course(tmp_path / "course")


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
    rows = csv_lines(course / "out.csv")
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert {r[1]: r[5:] for r in rows[2:]} == {"9001": ["4.5", "5", "9.5"], "9002": ["2", "", "2"]}
    assert "bob 02_transfers: left empty" in done.stderr
    assert csv_lines(course / "out_lateness.csv")[2][5] == "120"
    # on the command line nbgrader imports the class before reading the config: the repo on PYTHONPATH
    done = _nbgrader_export(course, "--exporter=graders.export.lms.MoodleExport", "--to", "m.csv",
                            pythonpath=str(REPO))
    assert done.returncode == 0, done.stdout + done.stderr
    assert csv_lines(course / "m.csv")[0][:2] == ["Email address", "Full name"]   # issue 23: no guessed Username
