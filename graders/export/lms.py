"""Grades for an LMS gradebook import: one row per student, from nbgrader's gradebook.

nbgrader export plugins (``nbgrader export --exporter=graders.export.lms.CanvasExport``; see
docs/exporting.md). They read the gradebook, so manual grades given in the formgrader are in.

- a column per notebook (its score: nbgrader's, minus nbgrader's own late penalty if the course
  configured one; the default is none), then the total;
- lateness: the submission time (``collect_manifest.csv``'s ``submitted_at``, else nbgrader's
  submission timestamp) against the due date (``due``, ``due_by_notebook``, else the assignment's
  ``duedate`` in the gradebook) as minutes late. It never changes a score;
- a score nobody should import is left **empty** and listed in :attr:`LmsExport.warnings` (printed):
  a notebook under review (nbgrader's ``flagged``), one that still needs a grade (a failed run, a
  manual answer not yet graded), or no submission.
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins.export import ExportPlugin
from traitlets import Dict, Unicode

UTC = dt.timezone.utc


def parse_due(text: str) -> dt.datetime:
    """An ISO time (``2026-12-15T23:59``); without an offset it is UTC. Returns an aware time."""
    when = dt.datetime.fromisoformat(text.strip())
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def _aware(when: dt.datetime | None) -> dt.datetime | None:
    """nbgrader stores naive UTC times."""
    return None if when is None else (when.replace(tzinfo=UTC) if when.tzinfo is None else when)


@dataclass
class Cell:
    score: float | None          # None: left empty in the file
    max_score: float
    submitted_at: dt.datetime | None = None
    due: dt.datetime | None = None
    why_empty: str = ""

    @property
    def minutes_late(self) -> int | None:
        if self.submitted_at is None or self.due is None:
            return None
        return max(0, int((self.submitted_at - self.due).total_seconds() // 60))


@dataclass
class Person:
    student_id: str
    name: str = ""
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_id: str = ""
    cells: dict = field(default_factory=dict)  # column -> Cell

    @property
    def total(self) -> float:
        return sum(c.score for c in self.cells.values() if c.score is not None)


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def read_manifest(path: Path) -> dict[tuple[str, str], dict]:
    if not path or not Path(path).exists():
        return {}
    with open(path, newline="") as f:
        return {(r["student_id"], r["notebook"]): r for r in csv.DictReader(f)}


class LmsExport(ExportPlugin):
    """Generic LMS file: ids, a score column per notebook, Total, then minutes late per notebook."""

    due = Unicode("", help="due date of every notebook, ISO (UTC unless an offset is given)").tag(config=True)
    due_by_notebook = Dict({}, help="notebook -> ISO due date, over `due`").tag(config=True)
    manifest = Unicode("", help="collect_manifest.csv (default: the course root's, if any)").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.warnings: list[str] = []

    # -- reading the gradebook ----------------------------------------------------------------
    def _manifest_path(self) -> Path | None:
        if self.manifest:
            return Path(self.manifest)
        coursedir = getattr(self.parent, "coursedir", None)
        return Path(coursedir.root) / "collect_manifest.csv" if coursedir is not None else None

    def _due_for(self, notebook: str, assignment) -> dt.datetime | None:
        text = self.due_by_notebook.get(notebook) or self.due
        return parse_due(text) if text else _aware(assignment.duedate)

    def columns(self, gradebook: Gradebook) -> list[tuple[str, str, str, float]]:
        """``(column, assignment, notebook, max_score)``: a notebook alone in an assignment of its
        name (this course's layout) is ``01_devices``, otherwise ``assignment/notebook``."""
        cols = []
        for assignment in gradebook.assignments:
            if self.assignment and assignment.name not in [str(a) for a in self.assignment]:
                continue
            for nb in assignment.notebooks:
                single = len(assignment.notebooks) == 1 and nb.name == assignment.name
                cols.append((nb.name if single else f"{assignment.name}/{nb.name}", assignment.name, nb.name,
                             nb.max_score))
        return cols

    def people(self, gradebook: Gradebook) -> list[Person]:
        manifest = read_manifest(self._manifest_path())
        columns = self.columns(gradebook)
        wanted = [str(s) for s in self.student]
        people = []
        for student in gradebook.students:
            if wanted and student.id not in wanted:
                continue
            person = Person(student.id, first_name=student.first_name or "", last_name=student.last_name or "",
                            email=student.email or "", lms_id=student.lms_user_id or "")
            person.name = " ".join(p for p in (person.first_name, person.last_name) if p)
            for column, aname, nbname, max_score in columns:
                row = manifest.get((student.id, nbname), {})
                for key, attr in (("name", "name"), ("email", "email"), ("lms_id", "lms_id")):
                    if row.get(key):
                        setattr(person, attr, row[key])
                person.cells[column] = self._cell(gradebook, student.id, aname, nbname, max_score, row)
                if person.cells[column].why_empty:
                    self.warnings.append(f"{student.id} {column}: left empty, {person.cells[column].why_empty}")
            people.append(person)
        return people

    def _cell(self, gradebook, sid, aname, nbname, max_score, manifest_row) -> Cell:
        assignment = gradebook.find_assignment(aname)
        due = self._due_for(nbname, assignment)
        try:
            nb = gradebook.find_submission_notebook(nbname, aname, sid)
        except MissingEntry:
            return Cell(None, max_score, due=due, why_empty="no submission")
        when = (parse_due(manifest_row["submitted_at"]) if manifest_row.get("submitted_at")
                else _aware(nb.assignment.timestamp))
        cell = Cell(max(0.0, nb.score - (nb.late_submission_penalty or 0.0)), max_score, when, due)
        if nb.flagged:
            cell.score, cell.why_empty = None, "under review (flagged in the gradebook)"
        elif nb.needs_manual_grade:
            cell.score, cell.why_empty = None, "not graded yet (a failed run or a manual grade missing)"
        return cell

    # -- writing --------------------------------------------------------------------------------
    def header(self, columns: list[str]) -> list[str]:
        return (["Student ID", "Name", "Email", "LMS ID"] + columns + ["Total"]
                + [f"{c} minutes late" for c in columns])

    def row(self, person: Person, columns: list[str]) -> list[str]:
        return ([person.student_id, person.name, person.email, person.lms_id]
                + [_fmt(person.cells[c].score) for c in columns] + [_fmt(person.total)]
                + [_fmt(person.cells[c].minutes_late) for c in columns])

    def extra_rows(self, columns: list[tuple]) -> list[list[str]]:
        return []

    def default_name(self) -> str:
        return "grades_lms.csv"

    def export(self, gradebook: Gradebook) -> None:
        self.warnings = []
        cols = self.columns(gradebook)
        names = [c[0] for c in cols]
        people = self.people(gradebook)
        dest = Path(self.to or self.default_name())
        with open(dest, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(self.header(names))
            writer.writerows(self.extra_rows(cols))
            writer.writerows(self.row(p, names) for p in people)
        self.after_export(dest, people, names)
        self.log.info("Wrote %s (%d students, %d notebooks)", dest, len(people), len(names))
        for warning in self.warnings:
            self.log.warning(warning)
        self.written = dest

    def after_export(self, dest: Path, people: list[Person], columns: list[str]) -> None:
        pass


class CanvasExport(LmsExport):
    """Canvas's gradebook import: ``Student, ID, SIS User ID, SIS Login ID, Section``, a column
    per notebook (a new name becomes a new assignment), the optional ``Points Possible`` row, and
    the total as ``Final Points`` (a read-only column Canvas computes itself and ignores on import).
    Rows are matched by ``ID`` (the Canvas user id from the download), else by SIS Login ID.
    Lateness would become an assignment column, so it goes to ``<file>_lateness.csv`` beside it."""

    def default_name(self) -> str:
        return "grades_canvas.csv"

    def header(self, columns):
        return ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] + columns + ["Final Points"]

    def extra_rows(self, cols):
        return [["Points Possible", "", "", "", ""] + [_fmt(c[3]) for c in cols] + [_fmt(sum(c[3] for c in cols))]]

    def row(self, person, columns):
        if not person.lms_id:
            self.warnings.append(f"{person.student_id}: no Canvas user id (collect_manifest.csv or the gradebook's "
                                 "lms_user_id); its row carries the student id as SIS Login ID")
        name = f"{person.last_name}, {person.first_name}" if person.last_name else person.name or person.student_id
        return ([name, person.lms_id, "", "" if person.lms_id else person.student_id, ""]
                + [_fmt(person.cells[c].score) for c in columns] + [_fmt(person.total)])

    def after_export(self, dest, people, columns):
        late = dest.with_name(dest.stem + "_lateness.csv")
        with open(late, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["Student ID", "ID", "notebook", "submitted_at", "due", "minutes_late"])
            for p in people:
                for c in columns:
                    cell = p.cells[c]
                    writer.writerow([p.student_id, p.lms_id, c, cell.submitted_at.isoformat() if cell.submitted_at
                                     else "", cell.due.isoformat() if cell.due else "", _fmt(cell.minutes_late)])


class MoodleExport(LmsExport):
    """Moodle's "Import grades: CSV file": map ``Email address`` (or ``Username``) to the user field
    of that name, each notebook column to a grade item, and ``Total`` and the lateness columns to
    "Ignore" (Moodle computes its course total)."""

    def default_name(self) -> str:
        return "grades_moodle.csv"

    def header(self, columns):
        return (["Username", "Email address", "Full name"] + columns + ["Total"]
                + [f"{c} minutes late" for c in columns])

    def row(self, person, columns):
        if not person.email:
            self.warnings.append(f"{person.student_id}: no email address; map Moodle's users by Username")
        return ([person.student_id, person.email, person.name]
                + [_fmt(person.cells[c].score) for c in columns] + [_fmt(person.total)]
                + [_fmt(person.cells[c].minutes_late) for c in columns])


EXPORTERS = {"generic": LmsExport, "canvas": CanvasExport, "moodle": MoodleExport}
