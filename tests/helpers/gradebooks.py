"""A course as ``collect`` leaves it, with a gradebook written through nbgrader's API (no grading), for the
export's tests."""

from __future__ import annotations

import csv
import datetime as dt
import functools
import shutil
import tempfile
from pathlib import Path

from graders.intake import roster
from graders.paths import COURSE_ID


@functools.cache
def _empty_gradebook() -> Path:
    from nbgrader.api import Gradebook

    path = Path(tempfile.mkdtemp(prefix="gradebook-")) / "gradebook.db"
    with Gradebook(f"sqlite:///{path}", course_id=COURSE_ID):
        pass
    return path


def new_gradebook(path: Path) -> Path:
    """An empty nbgrader gradebook at ``path`` (one already there is kept): a copy of one that nbgrader's API made
    once in this process (making one runs nbgrader's schema set-up, seconds each time; opening a copy, milliseconds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        shutil.copyfile(_empty_gradebook(), path)
    return path

NOTEBOOKS = ("01_devices", "02_transfers")      # 5 points each
# lms-formats.md, Canvas: "every zip entry carries the time the zip was built": days after every due date here
ZIP_BUILT = dt.datetime(2026, 1, 12, 8, 15)
MANIFEST_FIELDS = ["student_id", "lms", "lms_id", "name", "email", "notebook", "submitted_at", "late", "time_source",
                   "group", "submission_id", "source", "key", "sha256", *roster.KINDS]


def make_course(root: Path, scores: dict[str, tuple], manifest: list[dict] | None, notebooks=NOTEBOOKS) -> Path:
    """A gradebook with ``scores[student] = (01_devices, 02_transfers)`` (None: not handed in), and the manifest
    (None: the one ``collect`` wrote stays)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{new_gradebook(root / 'gradebook.db')}", course_id=COURSE_ID) as gb:
        for nb in notebooks:
            gb.add_assignment(nb)
            gb.add_notebook(nb, nb)
            gb.add_grade_cell(f"{nb}_test", nb, nb, max_score=5, cell_type="code")
        for sid, per_notebook in scores.items():
            gb.add_student(sid)
            for nb, score in zip(notebooks, per_notebook, strict=True):
                if score is None:
                    continue
                gb.add_submission(nb, sid, timestamp=ZIP_BUILT)   # what a zip entry's time would give: never used
                grade = gb.find_grade(f"{nb}_test", nb, nb, sid)
                grade.auto_score, grade.needs_manual_grade = score, False
        gb.db.commit()
    if manifest is None:
        return root
    with open(root / "collect_manifest.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, MANIFEST_FIELDS)
        writer.writeheader()
        for row in manifest:
            writer.writerow(row)
    return root


# ---- the course the LMS exports are tested on ------------------------------------------------------
DUE = "2026-12-15T23:59"
ON_TIME = dt.datetime(2026, 12, 15, 20, 0)            # naive UTC, as nbgrader stores it
LATE = dt.datetime(2026, 12, 16, 1, 59)               # 120 minutes after DUE


def make_gradebook(root: Path) -> Path:
    from nbgrader.api import Gradebook

    db = new_gradebook(root / "gradebook.db")
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


def csv_lines(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def export_course(root: Path) -> Path:
    """Two notebooks, alice (one hand-in late, her Canvas id in the manifest) and bob (a manual grade of 0, a
    notebook flagged for review), graded and filed as ``autograde`` and the formgrader leave them."""
    root = make_gradebook(root)
    with open(root / "collect_manifest.csv", "w", newline="") as f:  # alice came through Canvas
        writer = csv.DictWriter(f, ["student_id", "lms", "lms_id", "name", "email", "notebook", "submitted_at",
                                    "late"])
        writer.writeheader()
        writer.writerow({"student_id": "alice", "lms": "canvas", "lms_id": "9001", "name": "Alice Adams",
                         "email": "alice@uni.example", "notebook": "02_transfers",
                         "submitted_at": "2026-12-16T01:59:00+00:00", "late": "true"})
    return root


def export(cls, root: Path, out: Path, **kw):
    """The export plugin ``cls`` (graders.export.lms) run on the course at ``root`` into ``out``, as nbgrader does."""
    from nbgrader.api import Gradebook

    plugin = cls(to=str(out), manifest=str(root / "collect_manifest.csv"), **kw)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        plugin.export(gb)
    return plugin
