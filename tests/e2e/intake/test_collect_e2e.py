"""Collecting with real nbgrader: a Canvas zip collected and graded to grades.csv, and the Canvas collector as
nbgrader's own ``zip_collect`` plugin."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from graders.__main__ import main
from tests.helpers import lms
from tests.helpers.tables import csv_rows

NB = lms.NB



def test_end_to_end_canvas_zip_to_grades(tmp_path):
    """A Canvas zip of two students, collected, then graded from the course's submitted/ by real nbgrader."""
    download = lms.write({  # samples/submissions' correct and untouched copies, made from today's notebooks
        "smithbob_340934_208490284_01_devices.ipynb": (lms.made_now(answers=True), lms.minutes(0)),
        "lovelaceada_LATE_334244_394803489_Copy of 01_devices.ipynb": (lms.made_now(answers=False), lms.minutes(1)),
    }, tmp_path / "dl", "submissions.zip")
    course = tmp_path / "course"
    assert main(["collect", str(download), "--course", str(course), "--notebooks", NB]) == 0
    assert main(["autograde", str(course / "submitted"), "--out", str(tmp_path / "graded"),
                 "--notebooks", NB, "--jobs", "1", "--quiet"]) == 0
    rows = {r["student_id"]: r for r in csv_rows(tmp_path / "graded" / "grades.csv")}
    assert set(rows) == {"canvas_340934", "canvas_334244"}
    full = float(rows["canvas_340934"]["max_score"])
    assert full > 0 and rows["canvas_340934"]["status"] == "graded" and float(rows["canvas_340934"]["score"]) == full
    assert rows["canvas_334244"]["status"] == "graded" and float(rows["canvas_334244"]["score"]) == 0
    with zipfile.ZipFile(download) as zf:  # the download itself is untouched by either step
        assert len(zf.namelist()) == 2


NB = lms.NB


def _submitted(course: Path) -> dict[tuple[str, str], bytes]:
    return {(p.parts[-3], p.parts[-2]): p.read_bytes() for p in (course / "submitted").glob("*/*/*.ipynb")}


def test_the_canvas_collector_is_a_working_nbgrader_zip_collect_plugin(tmp_path):
    archive = tmp_path / "downloaded" / NB / "archive"
    lms.write({"smithbob_340934_208490284_01_devices.ipynb": (lms.correct(), lms.minutes(0)),
               "lovelaceada_LATE_334244_394803489_Copy of 01_devices.ipynb": (lms.untouched(), lms.minutes(1))},
              archive, "submissions.zip")
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    env = dict(os.environ, PYTHONPATH=str(lms.REPO))
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "zip_collect", NB,
                           "--collector=graders.intake.lms.canvas.CanvasCollector"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _submitted(tmp_path) == {("canvas_340934", NB): lms.correct(), ("canvas_334244", NB): lms.untouched()}
