"""Combine gradebooks and result tables graded in separate course folders into one.

Parallel workers (``--jobs``) and shards on other machines (``--shard i/n``) each grade into a
copy of the course folder; this puts their submissions, grades, comments, flags and graded
notebooks into one course folder, so that ``nbgrader generate_feedback`` and ``nbgrader export`` see
them all, and their reviews (``reviews.json``: findings and decisions) into one, so that merged rows
keep status ``review`` until decided (``graders.grading.review``).
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from graders.errors import InputError
from graders.grading import graded_folder
from graders.grading.gradebook_rows import cell_key, is_instructors
from graders.paths import COURSE_ID


def seed_course(target_root: Path, source_root: Path) -> bool:
    """A new merged course started as a copy of one shard's (config, source, release, gradebook and its
    ledger): every shard grades a copy of one course, so nothing needs generating again. False if the
    target has a gradebook already (it is merged into, never replaced)."""
    if graded_folder.has_gradebook(target_root) or not graded_folder.has_gradebook(source_root):
        return False
    target_root.mkdir(parents=True, exist_ok=True)
    for folder in ("source", "release"):
        if (source_root / folder).is_dir():
            shutil.copytree(source_root / folder, target_root / folder, dirs_exist_ok=True)
    for name in (graded_folder.GRADEBOOK, "nbgrader_config.py", graded_folder.LEDGER):
        if (source_root / name).exists():
            shutil.copy2(source_root / name, target_root / name)
    return True


def merge_gradebooks(target_root: Path, source_roots: list[Path]) -> int:
    """Copy every submission of the sources' gradebooks into the target's; return how many."""
    from nbgrader.api import Gradebook

    count = 0
    with Gradebook(graded_folder.gradebook_url(target_root), course_id=COURSE_ID) as target:
        for root in source_roots:
            ledger = graded_folder.read_ledger(root)
            with Gradebook(graded_folder.gradebook_url(root), course_id=COURSE_ID) as source:
                for assignment in source.assignments:
                    for sub in assignment.submissions:
                        _copy_submission(source, target, assignment.name, sub.student.id, sub.timestamp, ledger)
                        _copy_folders(root, target_root, assignment.name, sub.student.id)
                        count += 1
    return count


def _copy_submission(source, target, assignment: str, student: str, timestamp, ledger: dict) -> None:
    """The source's autograder scores, comments and flag into the target, whose manual grades stay.

    A manual score an instructor gave in the source (one its review did not write: not in its
    ``ledger``) is copied where the target has none; the review's own are written again for the
    target by ``review.reapply`` after a merge.
    """
    target.update_or_create_student(student)
    target.update_or_create_submission(assignment, student, **({"timestamp": timestamp} if timestamp else {}))
    for nb in source.find_submission(assignment, student).notebooks:
        for grade in nb.grades:
            new = target.find_grade(grade.name, nb.name, assignment, student)
            before, new.auto_score = new.auto_score, grade.auto_score
            new.extra_credit = grade.extra_credit
            theirs = is_instructors(grade.manual_score, ledger.get(cell_key(student, nb.name, grade.name)))
            if theirs and new.manual_score is None:
                new.manual_score = grade.manual_score
            new.needs_manual_grade = grade.auto_score is None or (new.manual_score is not None
                                                                  and before != grade.auto_score)
        for comment in nb.comments:
            new = target.find_comment(comment.name, nb.name, assignment, student)
            new.auto_comment = comment.auto_comment
        target.find_submission_notebook(nb.name, assignment, student).flagged = nb.flagged
    target.db.commit()


def _copy_folders(source_root: Path, target_root: Path, assignment: str, student: str) -> None:
    for step in ("submitted", "autograded"):
        src = source_root / step / student / assignment
        if src.exists() and source_root != target_root:
            dest = target_root / step / student / assignment
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(src, dest)


def merge_reviews(out: Path, shard_dirs: list[Path]) -> None:
    """Every shard's findings and decisions into ``out/reviews.json`` (its own decisions kept)."""
    from graders.grading.review import Store

    store = Store(out)
    for shard in shard_dirs:
        store.merge(Store(Path(shard)))
    store.save()


def merge_tables(out: Path, shard_dirs: list[Path], names: list[str]) -> list[dict]:
    """The shards' grades.csv and grades_detail.csv into ``out``'s, sorted by student (``read_tables`` then
    ``write_tables``: a caller that must refuse before writing anything else calls the two itself)."""
    return write_tables(out, read_tables(out, shard_dirs), names)


def read_tables(out: Path, shard_dirs: list[Path]) -> dict[str, list[dict]]:
    """{table: rows} of every shard, each row keyed by the columns this grader writes, whatever the age of the
    shard that wrote it (``graded_folder.reconcile``), followed by ``out``'s earlier rows of pairs no shard graded.

    Raises InputError, one line naming the shards, for what cannot be reconciled (a column missing that no
    default stands for, a column this grader does not know, a student in two shards); nothing is written then.
    """
    problems: list[str] = []
    tables: dict[str, list[dict]] = {}
    problems += _newer(out, shard_dirs)
    for table in (graded_folder.GRADES, graded_folder.DETAIL):
        rows, refused = [], {}
        for shard in shard_dirs:
            header, shard_rows = _read(Path(shard) / table)
            why = graded_folder.unreconciled(table, header)
            if why:
                refused.setdefault(why, []).append(str(shard))
            else:
                rows.extend(graded_folder.reconcile(table, r) for r in shard_rows)
        problems += [f"{table} of {', '.join(shards)} {why}" for why, shards in refused.items()]
        if table == graded_folder.GRADES:
            problems += _doubles(shard_dirs)
        graded = {(r["student_id"], r["notebook"]) for r in rows}
        if (out / table).exists() and Path(out).resolve() not in [Path(d).resolve() for d in shard_dirs]:
            header, earlier = _read(out / table)
            why = graded_folder.unreconciled(table, header)
            if why:
                problems.append(f"{table} of {out} {why}")
            else:
                rows.extend(graded_folder.reconcile(table, r) for r in earlier
                            if (r["student_id"], r["notebook"]) not in graded)
        tables[table] = rows
    if problems:
        raise InputError("cannot merge: " + "; ".join(problems) + " (nothing was merged)")
    return tables


def write_tables(out: Path, tables: dict[str, list[dict]], names: list[str]) -> list[dict]:
    """``read_tables``'s rows into ``out``'s tables in the columns this grader writes; the rows of grades.csv.

    A pair (student, notebook) a shard graded replaces ``out``'s earlier row of it; every other
    earlier row of ``out`` stays (a merge adds and updates, never deletes).
    """
    order = {name: i for i, name in enumerate(names)}
    for table, rows in tables.items():
        rows.sort(key=lambda r: (r["student_id"], order.get(r["notebook"], 99)))
        graded_folder.write_table(Path(out), table, rows)
    return tables[graded_folder.GRADES]


def _read(path: Path) -> tuple[list[str], list[dict]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def _newer(out: Path, shard_dirs: list[Path]) -> list[str]:
    """The folders (shards, or ``out``) a newer grader wrote: their format is one this grader cannot keep whole."""
    newer = [str(d) for d in [*shard_dirs, out] if (graded_folder.format_of(d) or 0) > graded_folder.FORMAT]
    if not newer:
        return []
    return [f"{', '.join(newer)} hold a graded-folder format newer than this grader's {graded_folder.FORMAT}"]


def _doubles(shard_dirs: list[Path]) -> list[str]:
    """A student's notebook graded in more than one shard: which shards (each would overwrite the other)."""
    seen: dict[tuple[str, str], list[str]] = {}
    for shard in shard_dirs:
        for r in _read(Path(shard) / graded_folder.GRADES)[1]:
            if "student_id" in r and "notebook" in r:
                seen.setdefault((r["student_id"], r["notebook"]), []).append(str(shard))
    doubled = sorted({tuple(shards) for shards in seen.values() if len(shards) > 1})
    return [f"grades.csv of {', '.join(shards)} grade the same student's notebook (a shard given twice?)"
            for shards in doubled]
