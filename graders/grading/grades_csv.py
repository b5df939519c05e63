"""The grades files of a results folder: ``grades.csv`` (a row per student and notebook) and
``grades_detail.csv`` (the score of every test cell), written and read back the same way by ``autograde``,
``review`` and ``merge``."""

from __future__ import annotations

import contextlib
import csv
import os
from pathlib import Path

from graders import csvfile
from graders.grading.row import DETAIL_FIELDS, FIELDS, Row


def write_csv(rows: list[Row], out: Path) -> None:
    """Both files, each replaced whole (a kill mid-write leaves the old file or the new one, never a torn one).

    The detail goes first: as a run writes them, each new table holds every row of the last, so a run stopped
    between the two leaves cells of a row that grades.csv does not have yet (read back as nothing), never a row
    of grades.csv without its cells."""
    with _replacing(Path(out) / "grades_detail.csv") as f:
        writer = csv.DictWriter(f, DETAIL_FIELDS)
        writer.writeheader()
        for r in rows:
            writer.writerows(r.detail())
    with _replacing(Path(out) / "grades.csv") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows(r.csv() for r in rows)


@contextlib.contextmanager
def _replacing(path: Path):
    """``with _replacing(path) as f:`` writes a temporary file beside ``path`` and moves it over ``path`` at the end."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            yield f
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_csv(out: Path) -> list[Row]:
    """The rows of ``out/grades.csv`` with their test cells from ``grades_detail.csv`` (FileNotFoundError when
    the folder has no grades yet)."""
    if not (Path(out) / "grades.csv").exists():
        raise FileNotFoundError(Path(out) / "grades.csv")
    cells: dict = {}
    reasons: dict = {}
    for d in csvfile.read_rows(Path(out) / "grades_detail.csv"):
        cells.setdefault((d["student_id"], d["notebook"]), {})[d["grade_id"]] = (
            float(d["score"] or 0), float(d["max_score"]))
        if d.get("reason"):  # a file written before the column was added has none
            reasons.setdefault((d["student_id"], d["notebook"]), {})[d["grade_id"]] = d["reason"]
    return [Row(r["student_id"], r["notebook"], float(r["score"]) if r["score"] else None, float(r["max_score"]),
                r["status"], r["message"], cells=cells.get((r["student_id"], r["notebook"]), {}),
                reasons=reasons.get((r["student_id"], r["notebook"]), {}))
            for r in csvfile.read_rows(Path(out) / "grades.csv")]
