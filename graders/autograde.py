"""``python -m graders autograde SUBMISSIONS --out DIR``: grade every student with real nbgrader.

Each (student, notebook) runs in its own ``nbgrader autograde`` process under the limits of
``graders.limits`` (see ``graders.grade_one``), so a crash, a dead kernel or an endless loop costs
that one notebook only. Every pair ends as a row of ``DIR/grades.csv``: ``graded`` with its score,
or ``failed`` with a reason. ``DIR/grades_detail.csv`` holds the score of every test cell.
"""

from __future__ import annotations

import csv
import hashlib
import queue
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import course, intake
from .cores import cores_shared
from .grade_one import FIELDS, Row, grade_one, max_scores
from .merge import merge_gradebooks
from .paths import notebook_names


def students_in(submissions: Path) -> list[Path]:
    return sorted(p for p in Path(submissions).iterdir() if p.is_dir() and not p.name.startswith("."))


def in_shard(student: str, shard: tuple[int, int] | None) -> bool:
    """Shard ``(i, n)`` holds the students whose id hashes to ``i - 1`` modulo ``n``.

    A hash of the id, not a position in a listing, so that every machine agrees on the split
    and a late submission does not move other students between shards.
    """
    if shard is None:
        return True
    index, count = shard
    return int(hashlib.sha256(student.encode()).hexdigest(), 16) % count == index - 1


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    index, count = (int(part) for part in text.split("/"))
    if not 1 <= index <= count:
        raise ValueError(f"--shard {text}: expected i/n with 1 <= i <= n")
    return index, count


def _worker_roots(root: Path, out: Path, jobs: int) -> list[Path]:
    """Worker 0 grades in the course folder itself; others in copies merged afterwards.

    One SQLite gradebook per worker: nbgrader opens its database for each notebook it grades,
    and several processes writing one file would sooner or later meet "database is locked".
    """
    roots = [root]
    for k in range(1, jobs):
        copy = out / "workers" / f"w{k}"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(root, copy)
        roots.append(copy)
    return roots


def autograde(submissions: Path, out: Path, names: list[str] | None = None, progress: bool = True,
              jobs: int = 1, shard: tuple[int, int] | None = None, solutions: Path | None = None) -> list[Row]:
    """Grade every student (of one shard) in ``submissions`` with ``jobs`` parallel workers."""
    names = names or notebook_names()
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = out / "course"
    course.create(root, names, **({"solutions": Path(solutions)} if solutions else {}))
    for folder in ("logs", "workers"):
        shutil.rmtree(out / folder, ignore_errors=True)
    maxima = max_scores(root, names)
    folders = [f for f in students_in(submissions) if in_shard(f.name, shard)]
    # Read every submission before any student code runs, so none can touch another's files first.
    intakes = {f.name: intake.intake_student(f, names) for f in folders}
    jobs = max(1, min(jobs, len(folders) or 1))
    roots = _worker_roots(root, out, jobs)
    free = queue.Queue()
    for r in roots:
        free.put(r)
    done: list[Row] = []
    lock = threading.Lock()
    total = len(folders) * len(names)

    def grade_student(folder: Path) -> list[Row]:
        worker = free.get()
        try:
            rows = []
            for name, item in intakes[folder.name].items():
                row = grade_one(worker, out, folder.name, item, maxima[name])
                rows.append(row)
                with lock:
                    done.append(row)
                    if progress:
                        print(f"[{len(done)}/{total}] {row.student_id:<24} {row.notebook:<16} "
                              f"{row.score:g}/{row.max_score:g} {row.status}", flush=True)
            return rows
        finally:
            free.put(worker)

    with cores_shared(jobs), ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(grade_student, folders))
    if len(roots) > 1:
        merge_gradebooks(root, roots[1:])
        shutil.rmtree(out / "workers", ignore_errors=True)
    rows = [row for student_rows in results for row in student_rows]
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
