"""The graded folder (``autograde --out DIR``, ``merge --out DIR``): the one module that knows its files, their
formats and versions, writes them (each replaced whole) and says what a rerun keeps. Every other module asks it.

::

    DIR/grades.csv             a row per (student, notebook): FIELDS            read_csv / write_csv
    DIR/grades_detail.csv      a row per test cell: DETAIL_FIELDS               (written with grades.csv)
    DIR/graded_inputs.json     {"student/notebook": fingerprint}                finished.Inputs (INPUTS)
    DIR/reviews.json           findings and every decision                      review.Store (REVIEWS)
    DIR/graded_folder.json     {"format": FORMAT}: this module's stamp          format_of
    DIR/course/                nbgrader's course (``paths.course_root``): submitted/, autograded/, and
        gradebook.db           nbgrader's gradebook, the system of record        gradebook_url
        graders_review_scores.json  the manual scores the review wrote (LEDGER)  read_ledger / write_ledger

Who writes what: ``run_record`` the grades files and the fingerprints as each notebook finishes; ``review`` the
findings, the decisions, the gradebook's flags and manual scores it gives, and the ledger of those; ``publish``
each notebook's autograder scores into the gradebook; ``merge`` all of them from the shards.

Every write goes through :func:`replacing` (a temporary file moved over the old one): a kill leaves the old file
or the new one, never a torn one. What a rerun keeps: every earlier row of a pair it does not grade
(:func:`keep`), and, of the pairs it is given, those whose fingerprint vouches for their row (``finished``).

Format versions (:data:`FORMAT`): 1, folders written before grades_detail.csv had a ``reason`` column (no stamp);
2, the ``reason`` column and the stamp. An older folder is read as it is (a column added since is given its
default, :data:`ADDED`) and written back in today's format by the next run; a folder stamped with a newer format
is refused, so that no field a newer grader wrote is dropped.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
from pathlib import Path

from graders import csvfile
from graders.errors import InputError
from graders.grading.row import DETAIL_FIELDS, FIELDS, Row
from graders.paths import notebook_names

FORMAT = 2
STAMP = "graded_folder.json"
GRADES, DETAIL = "grades.csv", "grades_detail.csv"
INPUTS = "graded_inputs.json"
REVIEWS = "reviews.json"
GRADEBOOK = "gradebook.db"
#: the manual scores graders.grading.review wrote, beside the gradebook: {"student/notebook/grade_id": score}
LEDGER = "graders_review_scores.json"

COLUMNS = {GRADES: FIELDS, DETAIL: DETAIL_FIELDS}
#: columns added after a table was first written, with what a row from before stands for: a folder (or a shard)
#: of either age reads and merges alike
ADDED = {DETAIL: {"reason": ""}}


# -- the folder's format -------------------------------------------------------------------------------------------
def format_of(out: Path) -> int | None:
    """The format ``out`` was written in: its stamp's, 1 for grades written before the stamp, None for no grades."""
    stamp = Path(out) / STAMP
    if stamp.exists():
        return int(json.loads(stamp.read_text(encoding="utf-8"))["format"])
    return 1 if (Path(out) / GRADES).exists() else None


def check_format(out: Path) -> None:
    """Refuse a folder a newer grader wrote (this one would drop what it does not know)."""
    found = format_of(out)
    if found is not None and found > FORMAT:
        raise InputError(f"{Path(out)} holds graded-folder format {found}, newer than this grader's {FORMAT}: "
                         "grade or merge it with the grader that wrote it")


def _stamp(out: Path) -> None:
    if format_of(out) != FORMAT:
        write_json(Path(out) / STAMP, {"format": FORMAT})


# -- writes that never tear ----------------------------------------------------------------------------------------
@contextlib.contextmanager
def replacing(path: Path):
    """``with replacing(path) as f:`` writes a temporary file beside ``path`` and moves it over ``path`` at the end."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            yield f
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_json(path: Path) -> dict:
    """One of the folder's JSON files; {} when there is none yet."""
    path = Path(path)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_json(path: Path, data: dict) -> None:
    with replacing(path) as f:
        f.write(json.dumps(data, indent=1) + "\n")


# -- the grades tables ---------------------------------------------------------------------------------------------
def has_grades(out: Path) -> bool:
    return (Path(out) / GRADES).exists()


def write_csv(rows: list[Row], out: Path) -> None:
    """Both files, each replaced whole, then the format stamp.

    The detail goes first: as a run writes them, each new table holds every row of the last, so a run stopped
    between the two leaves cells of a row that grades.csv does not have yet (read back as nothing), never a row
    of grades.csv without its cells."""
    with replacing(Path(out) / DETAIL) as f:
        writer = csv.DictWriter(f, DETAIL_FIELDS)
        writer.writeheader()
        for r in rows:
            writer.writerows(r.detail())
    with replacing(Path(out) / GRADES) as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows(r.csv() for r in rows)
    _stamp(out)


def read_csv(out: Path) -> list[Row]:
    """The rows of ``out/grades.csv`` with their test cells from ``grades_detail.csv``, in any format this grader
    reads (FileNotFoundError when the folder has no grades yet)."""
    if not has_grades(out):
        raise FileNotFoundError(Path(out) / GRADES)
    check_format(out)
    cells: dict = {}
    reasons: dict = {}
    for d in csvfile.read_rows(Path(out) / DETAIL):
        cells.setdefault((d["student_id"], d["notebook"]), {})[d["grade_id"]] = (
            float(d["score"] or 0), float(d["max_score"]))
        if d.get("reason"):  # format 1 has no such column
            reasons.setdefault((d["student_id"], d["notebook"]), {})[d["grade_id"]] = d["reason"]
    return [Row(r["student_id"], r["notebook"], float(r["score"]) if r["score"] else None, float(r["max_score"]),
                r["status"], r["message"], cells=cells.get((r["student_id"], r["notebook"]), {}),
                reasons=reasons.get((r["student_id"], r["notebook"]), {}))
            for r in csvfile.read_rows(Path(out) / GRADES)]


def read_rows(out: Path) -> list[Row]:
    """The folder's rows; none when it has no grades yet (a first run)."""
    return read_csv(out) if has_grades(out) else []


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


def write_table(out: Path, table: str, rows: list[dict]) -> None:
    """``rows`` (today's columns) as ``out``'s ``table``, replaced whole; the folder stamped."""
    with replacing(Path(out) / table) as f:
        writer = csv.DictWriter(f, COLUMNS[table])
        writer.writeheader()
        writer.writerows(rows)
    _stamp(out)


# -- what a rerun keeps --------------------------------------------------------------------------------------------
def keep(previous: list[Row], graded: list[Row]) -> list[Row]:
    """Every pair of either: this run's row where it graded the pair, else the earlier one; in course order."""
    order = {name: i for i, name in enumerate(notebook_names())}
    rows = {(r.student_id, r.notebook): r for r in previous}
    rows.update({(r.student_id, r.notebook): r for r in graded})
    return sorted(rows.values(), key=lambda r: (r.student_id, order.get(r.notebook, len(order)), r.notebook))


# -- nbgrader's gradebook and the review's ledger beside it (in the course root) ----------------------------------
def gradebook_path(root: Path) -> Path:
    return Path(root) / GRADEBOOK


def gradebook_url(root: Path) -> str:
    """What nbgrader's ``Gradebook`` opens for the course at ``root``."""
    return f"sqlite:///{gradebook_path(root)}"


def has_gradebook(root: Path) -> bool:
    return gradebook_path(root).exists()


def read_ledger(root: Path) -> dict[str, float]:
    return read_json(Path(root) / LEDGER)


def write_ledger(root: Path, ledger: dict[str, float]) -> None:
    write_json(Path(root) / LEDGER, dict(sorted(ledger.items())))
