"""``python -m graders autograde SUBMISSIONS --out DIR``: grade every student with real nbgrader.

Each (student, notebook) runs in its own ``nbgrader autograde`` process under the limits of
``graders.limits`` (see ``graders.grading.pipeline``), so a crash, a dead kernel or an endless loop costs
that one notebook only. Every pair ends as a row of ``DIR/grades.csv``: ``graded`` with its score,
``review`` when a tamper check found something (``graders.grading.review``: the instructor's decisions in
``DIR/reviews.json`` are applied to every run), or ``failed`` with a reason.
``DIR/grades_detail.csv`` holds the score of every test cell.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from graders import course, machine
from graders.errors import InputError
from graders.grading import gradebook_rows, review, sandbox, warm
from graders.grading.cores import cores_shared
from graders.grading.grades_csv import read_csv, write_csv
from graders.grading.pipeline import grade_one
from graders.grading.row import Row
from graders.grading.score import max_scores
from graders.intake import student_files as intake
from graders.limits import Limits
from graders.paths import course_root, is_course, notebook_names

log = logging.getLogger(__name__)


class NothingToGrade(InputError):
    """SUBMISSIONS holds no student folder with a notebook; the message says what it looks like."""


def students_in(submissions: Path) -> list[Path]:
    """The student folders of ``SUBMISSIONS/<student>/...`` or of an nbgrader course's ``submitted/``.

    A student's notebooks may lie at any depth (``submitted/<student>/<assignment>/<nb>.ipynb``).
    Raises :class:`NothingToGrade` for an LMS download, a zip, or a folder one level above the
    student folders, instead of grading it as an empty class or as one student.
    """
    from graders.intake.collect import detect
    path = Path(submissions)
    if path.is_dir() and (path / "submitted").is_dir():
        path = path / "submitted"  # an nbgrader course folder
    run_collect = f"run `python -m graders collect {submissions} --course DIR` first, then grade DIR/submitted"
    layout = detect(path) if path.exists() else None
    if layout == "zip" or (path.is_file() and path.suffix.lower() == ".zip"):
        raise NothingToGrade(f"{submissions} is a zip file, not a folder of student folders: {run_collect}")
    if layout:
        raise NothingToGrade(f"{submissions} looks like a {layout} download, not per-student folders: {run_collect}")
    if not path.is_dir():
        raise NothingToGrade(f"{submissions} is not a folder")
    folders = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "__MACOSX")
    with_notebooks = [f for f in folders if _notebooks_in(f)]
    if not with_notebooks:
        raise NothingToGrade(f"no student folder in {submissions} holds a notebook (looked for "
                             f"{submissions}/<student_id>/*.ipynb): nothing to grade. "
                             f"For an LMS download, {run_collect}")
    if all(_holds_students(f) for f in with_notebooks):
        raise NothingToGrade(f"the folders in {submissions} ({', '.join(f.name for f in with_notebooks[:3])}) hold "
                             f"student folders themselves: pass {with_notebooks[0]} (one folder per student) instead")
    return folders


def _notebooks_in(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and (".ipynb" in p.name.lower() or p.suffix.lower() == ".zip")
            and "__MACOSX" not in p.parts and ".ipynb_checkpoints" not in p.parts]


def _holds_students(folder: Path) -> bool:
    """A folder of student folders: no notebook of its own, and two or more sub-folders with notebooks
    that are not nbgrader assignment folders (named like a notebook)."""
    if any(p.parent == folder for p in _notebooks_in(folder)):
        return False
    subs = [d for d in folder.iterdir() if d.is_dir() and _notebooks_in(d)]
    return len(subs) >= 2 and not any(d.name in notebook_names() for d in subs)


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
        raise InputError(f"--shard {text}: expected i/n with 1 <= i <= n")
    return index, count


def autograde(submissions: Path, out: Path | None = None, names: list[str] | None = None, progress: bool = True,
              jobs: int = 1, shard: tuple[int, int] | None = None, solutions: Path | None = None,
              students: list[str] | None = None, limits: Limits | None = None) -> list[Row]:
    """Grade every student (of one shard, or those named) in ``submissions`` with ``jobs`` parallel workers,
    under ``limits`` (by default those of the environment, ``Limits.from_env()``, read once here).

    Results go to nbgrader's course folder ``course_root(out)`` (``out/course``, or ``out`` itself when it
    is an nbgrader course; ``out`` defaults to ``submissions`` when that is a course folder) and to
    ``out/grades.csv``. A rerun adds and updates: students and notebooks it does not grade keep their
    rows, and manual grades given in the formgrader stay (see :func:`graders.grading.gradebook_rows.refresh`).
    """
    limits = Limits.from_env() if limits is None else limits
    students_in(submissions)  # refuse an LMS download or an empty folder before any work
    if out is None:
        if not is_course(submissions):
            raise NothingToGrade(f"{submissions} is not an nbgrader course folder: say where results go (--out DIR)")
        out = submissions
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = course_root(out)
    names = names or course_notebooks(root, submissions)
    folders = [f for f in students_in(submissions) if in_shard(f.name, shard)
               and (students is None or f.name in students)]
    if students is not None:
        missing = sorted(set(students) - {f.name for f in folders})
        if missing:
            raise NothingToGrade(f"no folder in {submissions} for {', '.join(missing)}")
    jobs = max(1, min(jobs, len(folders) or 1))
    if not sandbox.active():  # once, even when quiet: the instructor must know what protects the machine
        log.warning(sandbox.probe().line())
    # the warm slots start in the background while the course and the data are made ready
    with cores_shared(jobs), warm.slots(jobs, limits) as warm_slots:
        course.ensure(root, names, limits=limits, **({"solutions": Path(solutions)} if solutions else {}))
        maxima = max_scores(root, names)
        machine.prepare(verbose=progress)
        # Read every submission before any student code runs, so none can touch another's files first.
        intakes = {f.name: intake.intake_student(f, names) for f in folders}
        results = grade_all(root, out, folders, intakes, maxima, names, jobs, warm_slots, progress, limits)
    graded = [row for student_rows in results for row in student_rows]
    return record_run(out, root, graded)


def grade_all(root: Path, out: Path, folders: list[Path], intakes: dict, maxima: dict, names: list[str], jobs: int,
              warm_slots: warm.slots, progress: bool, limits: Limits) -> list[list[Row]]:
    """Each student's rows, ``jobs`` students at a time (each thread in a warm slot of its own, when warm)."""
    done: list[Row] = []
    lock = threading.Lock()
    total = len(folders) * len(names)

    def grade_student(folder: Path) -> list[Row]:
        rows = []
        slot = warm_slots.for_this_thread()
        for name, item in intakes[folder.name].items():
            row = grade_one(root, out, folder.name, item, maxima[name], slot, limits)
            rows.append(row)
            with lock:
                done.append(row)
                if progress:
                    log.info("[%d/%d] %-24s %-16s %s %s", len(done), total, row.student_id, row.notebook,
                             score_text(row), row.status)
        return rows

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(grade_student, folders))


def course_notebooks(root: Path, submissions: Path) -> list[str]:
    """The notebooks to grade when none are named: those of an instructor's course (its ``source/``), else all;
    from an nbgrader course's ``submitted/``, only the assignments someone handed in (a week's LMS download
    holds one notebook: the others are not "missing" for every student)."""
    names = course.released_here(root) or notebook_names()
    folder = Path(submissions) / "submitted"
    if folder.is_dir():
        handed_in = {p.name for p in folder.glob("*/*") if p.is_dir()}
        names = [n for n in names if n in handed_in] or names
    return names


def record_run(out: Path, root: Path, graded: list[Row]) -> list[Row]:
    """This run's rows into ``out``: findings recorded, every decision applied, earlier rows of what this
    run did not grade kept, manual grades from the gradebook shown; the gradebook told the same."""
    previous = read_csv(out) if (out / "grades.csv").exists() else []
    rows = combine(previous, graded)
    rows = review.settle_run(out, graded, rows)
    rows = gradebook_rows.refresh(root, rows)
    review.sync_gradebook(root, rows)
    write_csv(rows, out)
    return rows


def combine(previous: list[Row], graded: list[Row]) -> list[Row]:
    """Every pair of either: this run's row where it graded the pair, else the earlier one; in course order."""
    order = {name: i for i, name in enumerate(notebook_names())}
    rows = {(r.student_id, r.notebook): r for r in previous}
    rows.update({(r.student_id, r.notebook): r for r in graded})
    return sorted(rows.values(), key=lambda r: (r.student_id, order.get(r.notebook, len(order)), r.notebook))


def score_text(row: Row) -> str:
    return f"{'-' if row.score is None else f'{row.score:g}'}/{row.max_score:g}"


def table_lines(rows: list[Row]) -> list[str]:
    """The results table a command prints: a line per student, then the failed and the reviewed notebooks."""
    lines = []
    names = list(dict.fromkeys(r.notebook for r in rows))
    students = list(dict.fromkeys(r.student_id for r in rows))
    cell = {(r.student_id, r.notebook): r for r in rows}
    width = max([len(s) for s in students] + [10])
    lines.append(f"\n{'student':<{width}}  " + "  ".join(f"{n[:14]:>14}" for n in names))
    for s in students:
        parts = []
        for n in names:
            r = cell.get((s, n))
            text = "-" if r is None else score_text(r) + MARKS.get(r.status, "")
            parts.append(f"{text:>14}")
        lines.append(f"{s:<{width}}  " + "  ".join(parts))
    for r in rows:
        if r.status == "failed":
            lines.append(f"  FAILED {r.student_id}/{r.notebook}: {r.message}")
    reviews = [r for r in rows if r.status == "review"]
    for r in reviews:
        lines.append(f"  REVIEW {r.student_id}/{r.notebook}: {r.message}")
    if reviews:
        lines.append(f"  {len(reviews)} notebook(s) to review: `python -m graders review DIR` lists them; "
                     "`--accept` / `--reject STUDENT NOTEBOOK` decides")
    return lines


#: what the table adds to a score: a review is not a failure (its score, if shown, stands)
MARKS = {"graded": "", "review": " REVIEW", "failed": " FAIL"}
