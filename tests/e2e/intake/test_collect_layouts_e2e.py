"""IDs with an address and accents, collected and graded by real nbgrader."""

from __future__ import annotations

import sys

from graders.__main__ import main
from tests.helpers import lms
from tests.helpers.tables import csv_rows

NB = lms.NB



def test_ids_with_an_address_and_accents_are_graded_by_real_nbgrader(tmp_path):
    """``gradescope_bob@example.edu`` and ``classroom_josé_müller`` are folder names nbgrader grades as students."""
    import subprocess

    folder = tmp_path / "downloads"
    # lms-formats.md, Gradescope: "submission_metadata.yml + submission_<id>/<files>", ":sid: may be … absent"
    yml = ("submission_1:\n  :submitters:\n  - :name: Bob Smith\n    :email: bob@example.edu\n"
           "  :created_at: 2026-01-05 14:00:00.000000000 Z\n")
    lms.write({"assignment_7_export/submission_metadata.yml": (yml.encode(), lms.T0),
               "assignment_7_export/submission_1/01_devices.ipynb": (lms.made_now(answers=False), lms.T0)},
              folder, "assignment_7_export.zip")
    # lms-formats.md, Google Classroom: copies named "<Student Name> - <title>"
    lms.write({"01_devices/José Müller - 01_devices.ipynb": (lms.made_now(answers=True), lms.T0)},
              folder, "01_devices-20260105T140000Z-001.zip")
    course = tmp_path / "course"
    assert main(["collect", str(folder), "--course", str(course), "--notebooks", NB]) == 0
    env = dict(__import__("os").environ)
    done = subprocess.run([sys.executable, "-m", "graders", "autograde", str(course), "--notebooks", NB, "--jobs", "1",
                           "--quiet"], cwd=lms.REPO, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = {r["student_id"]: r for r in csv_rows(course / "grades.csv")}
    assert set(rows) == {"gradescope_bob@example.edu", "classroom_josé_müller"}
    assert all(r["status"] == "graded" for r in rows.values())
    assert float(rows["classroom_josé_müller"]["score"]) == float(rows["classroom_josé_müller"]["max_score"]) > 0
    assert float(rows["gradescope_bob@example.edu"]["score"]) == 0
