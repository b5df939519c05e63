"""``python -m graders autograde SUBMISSIONS --out DIR``: grade every student with real nbgrader.

Each (student, notebook) runs in its own ``nbgrader autograde`` process under the limits of
``graders.limits`` (see ``graders.grade_one``), so a crash, a dead kernel or an endless loop costs
that one notebook only. Every pair ends as a row of ``DIR/grades.csv``: ``graded`` with its score,
or ``failed`` with a reason. ``DIR/grades_detail.csv`` holds the score of every test cell.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from . import course, intake
from .grade_one import FIELDS, Row, grade_one, max_scores
from .paths import notebook_names


def students_in(submissions: Path) -> list[Path]:
    return sorted(p for p in Path(submissions).iterdir() if p.is_dir() and not p.name.startswith("."))


def autograde(submissions: Path, out: Path, names: list[str] | None = None, progress: bool = True) -> list[Row]:
    names = names or notebook_names()
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = out / "course"
    course.create(root, names)
    shutil.rmtree(out / "logs", ignore_errors=True)
    maxima = max_scores(root, names)
    rows = []
    folders = students_in(submissions)
    total = len(folders) * len(names)
    for folder in folders:
        for name, item in intake.intake_student(folder, names).items():
            rows.append(grade_one(root, out, folder.name, item, maxima[name]))
            if progress:
                r = rows[-1]
                print(f"[{len(rows)}/{total}] {r.student_id:<24} {r.notebook:<16} "
                      f"{r.score:g}/{r.max_score:g} {r.status}", flush=True)
    write_csv(rows, out)
    return rows


def write_csv(rows: list[Row], out: Path) -> None:
    with open(out / "grades.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows(r.csv() for r in rows)
    with open(out / "grades_detail.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "notebook", "grade_id", "score", "max_score"])
        for r in rows:
            for gid, (score, mx) in r.cells.items():
                writer.writerow([r.student_id, r.notebook, gid, f"{score:g}", f"{mx:g}"])


def print_table(rows: list[Row]) -> None:
    names = list(dict.fromkeys(r.notebook for r in rows))
    students = list(dict.fromkeys(r.student_id for r in rows))
    cell = {(r.student_id, r.notebook): r for r in rows}
    width = max([len(s) for s in students] + [10])
    print(f"\n{'student':<{width}}  " + "  ".join(f"{n[:14]:>14}" for n in names))
    for s in students:
        parts = []
        for n in names:
            r = cell.get((s, n))
            text = "-" if r is None else (f"{r.score:g}/{r.max_score:g}" + ("" if r.status == "graded" else " FAIL"))
            parts.append(f"{text:>14}")
        print(f"{s:<{width}}  " + "  ".join(parts))
    failed = [r for r in rows if r.status == "failed"]
    for r in failed:
        print(f"  FAILED {r.student_id}/{r.notebook}: {r.message}")
