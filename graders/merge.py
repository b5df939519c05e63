"""Combine gradebooks and result tables graded in separate course folders into one.

Parallel workers (``--jobs``) and shards on other machines (``--shard i/n``) each grade into a
copy of the course folder; this puts their submissions, grades, comments, flags and graded
notebooks into one course folder, so that ``nbgrader generate_feedback`` and ``nbgrader export`` see
them all, and their reviews (``reviews.json``: findings and decisions) into one, so that merged rows
keep status ``review`` until decided (``graders.review``).
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from .paths import COURSE_ID


def merge_gradebooks(target_root: Path, source_roots: list[Path]) -> int:
    """Copy every submission of the sources' gradebooks into the target's; return how many."""
    from nbgrader.api import Gradebook

    count = 0
    with Gradebook(f"sqlite:///{target_root / 'gradebook.db'}", course_id=COURSE_ID) as target:
        for root in source_roots:
            with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as source:
                for assignment in source.assignments:
                    for sub in assignment.submissions:
                        _copy_submission(source, target, assignment.name, sub.student.id, sub.timestamp)
                        _copy_folders(root, target_root, assignment.name, sub.student.id)
                        count += 1
    return count


def _copy_submission(source, target, assignment: str, student: str, timestamp) -> None:
    target.update_or_create_student(student)
    try:
        target.remove_submission(assignment, student)
    except Exception:  # MissingEntry: nothing to replace
        pass
    target.add_submission(assignment, student, timestamp=timestamp)
    for nb in source.find_submission(assignment, student).notebooks:
        for grade in nb.grades:
            new = target.find_grade(grade.name, nb.name, assignment, student)
            new.auto_score, new.manual_score = grade.auto_score, grade.manual_score
            new.extra_credit, new.needs_manual_grade = grade.extra_credit, grade.needs_manual_grade
        for comment in nb.comments:
            new = target.find_comment(comment.name, nb.name, assignment, student)
            new.auto_comment, new.manual_comment = comment.auto_comment, comment.manual_comment
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
    from .review import Store

    store = Store(out)
    for shard in shard_dirs:
        store.merge(Store(Path(shard)))
    store.save()


def merge_tables(out: Path, shard_dirs: list[Path], names: list[str]) -> list[dict]:
    """Concatenate the shards' grades.csv and grades_detail.csv into ``out``, sorted by student."""
    order = {name: i for i, name in enumerate(names)}
    for table in ("grades.csv", "grades_detail.csv"):
        rows, header = [], None
        for shard in shard_dirs:
            with open(Path(shard) / table, newline="") as f:
                reader = csv.DictReader(f)
                header = reader.fieldnames
                rows.extend(reader)
        rows.sort(key=lambda r: (r["student_id"], order.get(r["notebook"], 99)))
        keys = [(r["student_id"], r["notebook"], r.get("grade_id")) for r in rows]
        if len(keys) != len(set(keys)):
            raise ValueError(f"{table}: a student appears in more than one shard")
        with open(out / table, "w", newline="") as f:
            writer = csv.DictWriter(f, header)
            writer.writeheader()
            writer.writerows(rows)
        if table == "grades.csv":
            merged = rows
    return merged
