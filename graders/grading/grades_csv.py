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

GRADES, DETAIL = "grades.csv", "grades_detail.csv"
COLUMNS = {GRADES: FIELDS, DETAIL: DETAIL_FIELDS}
#: columns added after a table was first written, with what a row from before stands for: a folder (or a shard)
#: of either age reads and merges alike
ADDED = {DETAIL: {"reason": ""}}


def unreconciled(table: str, header: list[str]) -> str:
    """Why rows under ``header`` cannot be read as ``table``'s rows of today ("" when they can): a column
    missing that no default stands for, or one this grader does not write (it would be lost)."""
    missing = [c for c in COLUMNS[table] if c not in header and c not in ADDED.get(table, {})]
    unknown = [c for c in header if c not in COLUMNS[table]]
    why = []
    if missing:
        why.append(f"lacks column(s) {', '.join(missing)}")
    if unknown:
        why.append(f"has column(s) {', '.join(unknown)} this grader does not write (written by a newer one?)")
    return " and ".join(why)


def reconcile(table: str, row: dict) -> dict:
    """``row`` (read by column name) in today's columns, a column added since it was written given its default."""
    defaults = ADDED.get(table, {})
    return {c: row[c] if row.get(c) is not None else defaults.get(c, "") for c in COLUMNS[table]}


def write_table(path: Path, table: str, rows: list[dict]) -> None:
    """``rows`` (today's columns) as ``table`` at ``path``, replaced whole."""
    with _replacing(Path(path)) as f:
        writer = csv.DictWriter(f, COLUMNS[table])
        writer.writeheader()
        writer.writerows(rows)


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
