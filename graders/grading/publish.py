"""Step 6, publish: the run's graded notebook, the submission as handed in, and the grades, into the
shared course folder, as if ``nbgrader autograde`` had run there (for the formgrader, feedback and export)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import nbformat

from graders import nbtools
from graders.grading import graded_folder
from graders.grading.job import Attempt, Job
from graders.intake import student_files as intake
from graders.paths import COURSE_ID

#: one writer at a time into the shared course folder and its SQLite gradebook (``--jobs`` threads)
PUBLISH_LOCK = threading.Lock()

#: a guard cell's source in the course's graded copy, which the formgrader shows the instructor: the install cell
#: alone is ~960 lines, half of a grading page, before the student's first answer. The run graded the full cells;
#: the copy keeps their metadata (``grader_guard``), outputs and place, so feedback still drops them.
FOLDED = "# grader's integrity guard ({lines} lines, not shown here: docs/grading.md, section 6)\n"


def _publish(run: Path, root: Path, student: str, name: str, item: intake.Intake) -> None:
    """Put the run's graded notebook, the submission as handed in, and the grades into the course folder.

    As ``nbgrader autograde`` does in place: the graded copy replaces the last one; a manual grade
    given in the formgrader is kept (and the cell marked for a second look, as nbgrader marks it).
    """
    with PUBLISH_LOCK:
        src = run / "course" / "autograded" / student / name
        dest = Path(root) / "autograded" / student / name
        if dest.exists():
            shutil.rmtree(dest, ignore_errors=True)
        if src.exists():
            shutil.copytree(src, dest, symlinks=False, ignore=shutil.ignore_patterns("*.lnk"))
            fold_guards(dest / f"{name}.ipynb")
        _file_submission(root, student, name, item)
        _publish_grades(run, root, student, name)


def fold_guards(path: Path) -> None:
    """The graded notebook at ``path`` with each guard cell's source one line (:data:`FOLDED`), keeping its mode
    (nbgrader leaves graded copies read-only). Nothing else changes: nbgrader checks the checksums of grade cells
    only, and the guard cells are not nbgrader cells."""
    if not path.exists():
        return
    nb = nbtools.read(path)
    guards = [cell for cell in nb.cells if cell.metadata.get("grader_guard")]
    if not guards:
        return
    for cell in guards:
        cell.source = FOLDED.format(lines=len(cell.source.splitlines()))
    mode = path.stat().st_mode
    path.chmod(mode | 0o200)
    nbformat.write(nb, str(path))
    path.chmod(mode)


def _file_submission(root: Path, student: str, name: str, item: intake.Intake) -> None:
    """The student's file as handed in (not the guarded copy) in ``submitted/``, unless it is there already."""
    folder = Path(root) / "submitted" / student / name
    target = folder / f"{name}.ipynb"
    if item.path is not None and Path(item.path).resolve() == target.resolve():
        return  # graded in place: the course's own submitted/ (collect, nbgrader collect)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(item.nb, str(target))
    item.copy_timestamp(folder)


def _publish_grades(run: Path, root: Path, student: str, name: str) -> None:
    from nbgrader.api import Gradebook

    private = f"sqlite:///{run / 'course' / 'gradebook.db'}"
    with Gradebook(private, course_id=COURSE_ID) as gb:
        sub = gb.find_submission_notebook(name, name, student)
        timestamp = gb.find_submission(name, student).timestamp
        grades = {g.name: g.auto_score for g in sub.grades}
        comments = {c.name: c.auto_comment for c in sub.comments}
    with Gradebook(graded_folder.gradebook_url(root), course_id=COURSE_ID) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(name, student, **({"timestamp": timestamp} if timestamp else {}))
        for gid, auto in grades.items():
            grade = gb.find_grade(gid, name, name, student)
            before, grade.auto_score = grade.auto_score, auto
            # nbgrader asks for a second look at every manual grade; here only where the autograder's
            # score moved (a changed submission), so an unchanged regrade leaves the gradebook as it was
            grade.needs_manual_grade = auto is None or (grade.manual_score is not None and before != auto)
        for gid, text in comments.items():
            try:
                gb.find_comment(gid, name, name, student).auto_comment = text
            except Exception:  # a comment cell nbgrader did not create
                pass
        gb.db.commit()


def publish(job: Job, attempt: Attempt):
    _publish(attempt.run, job.root, job.student, job.name, job.item)
    return attempt.row
