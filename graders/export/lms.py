"""Grades for an LMS gradebook import: one row per student, from nbgrader's gradebook.

nbgrader export plugins (``nbgrader export --exporter=graders.export.lms.CanvasExport``; see
docs/exporting.md). They read the gradebook, so manual grades given in the formgrader are in.

- a column per notebook (its score: nbgrader's, minus nbgrader's own late penalty if the course
  configured one; the default is none), then the total where the LMS takes one;
- the identifiers each importer matches on (``graders.export.identity``: ``collect_manifest.csv``, the
  gradebook's student records and ``roster``, the LMS's own roster export). A person the importer
  could not match is named before the file is written and left out of it (Moodle aborts a whole
  import on one unknown user); a roster student with no hand-in gets a row with empty scores; each
  person's roster status is in the file (generic, Moodle) or in ``<file>_lateness.csv`` beside it;
- lateness: the submission time (``collect_manifest.csv``'s ``submitted_at``; nbgrader's timestamp only
  for a student collect never saw) against the due date (``due``, ``due_by_notebook``, else the
  assignment's ``duedate``) as minutes late; where the LMS records no time but marks lateness
  (Canvas's ``LATE``), late yes/no without minutes. It never changes a score;
- a score nobody should import is left **empty** and listed in :attr:`LmsExport.warnings`: a notebook
  under review (nbgrader's ``flagged``), one that still needs a grade, or no submission.

The file formats follow ``/work/shared/reference/lms-formats.md``; ``tests/importers.py`` reads each
file the way its importer does.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins.export import ExportPlugin
from traitlets import Dict, Unicode

from graders.errors import RefusedError
from graders.export import identity
from graders.export.identity import Who

UTC = dt.UTC


class ExportRefused(RefusedError, RuntimeError):
    """No file an importer would accept can be written: the message says what to supply."""

    exit_code = 2  # what `python -m graders export` has always exited with on a refusal


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
    late_flag: bool | None = None   # what the LMS says (Canvas LATE) when it records no time

    @property
    def minutes_late(self) -> int | None:
        if self.submitted_at is None or self.due is None:
            return None
        return max(0, int((self.submitted_at - self.due).total_seconds() // 60))

    @property
    def late(self) -> str:
        """``yes``/``no`` from the time, else from the LMS's flag; empty when neither is known."""
        if self.minutes_late is not None:
            return "yes" if self.minutes_late > 0 else "no"
        return "" if self.late_flag is None else ("yes" if self.late_flag else "no")


@dataclass
class Person:
    who: Who
    cells: dict = field(default_factory=dict)  # column -> Cell

    @property
    def student_id(self) -> str:
        return self.who.student_id

    @property
    def label(self) -> str:
        """How messages name the person: nbgrader id and name, or the roster's name and ids."""
        ids = ", ".join(f"{k} {v}" for k, v in self.who.ids.items())
        if self.who.student_id:
            return f"{self.who.student_id} ({self.who.name})" if self.who.name else self.who.student_id
        return f"{self.who.name} ({ids})" if ids else self.who.name

    @property
    def total(self) -> float:
        return sum(c.score for c in self.cells.values() if c.score is not None)


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _flag(text: str | None) -> bool | None:
    text = (text or "").strip().lower()
    return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(text)


class LmsExport(ExportPlugin):
    """Generic LMS file: ids, a score column per notebook, Total, minutes late and late per notebook,
    and each person's roster status. Everyone is in it, whatever the status."""

    lms = ""
    keeps_everyone = True             # the generic file; an importer's file holds only whom it can match
    due = Unicode("", help="due date of every notebook, ISO (UTC unless an offset is given)").tag(config=True)
    due_by_notebook = Dict({}, help="notebook -> ISO due date, over `due`").tag(config=True)
    manifest = Unicode("", help="collect_manifest.csv (default: the course root's, if any)").tag(config=True)
    roster = Unicode("", help="the LMS's roster export (graders.intake.roster reads it)").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.warnings: list[str] = []
        self.announce = None          # a callable for warnings (default: the log); said as they arise, so before
                                      # the file is written

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        (self.announce or self.log.warning)(text)

    # -- reading the gradebook ----------------------------------------------------------------
    def _manifest_path(self) -> Path | None:
        if self.manifest:
            return Path(self.manifest)
        coursedir = getattr(self.parent, "coursedir", None)
        return Path(coursedir.root) / "collect_manifest.csv" if coursedir is not None else None

    def _due_for(self, notebook: str, assignment) -> dt.datetime | None:
        text = self.due_by_notebook.get(notebook) or self.due
        return parse_due(text) if text else _aware(assignment.duedate)

    def load_roster(self):
        """The roster (read once per export), or None."""
        if not self.roster:
            return None
        if getattr(self, "_roster", None) is None or self._roster.path != Path(self.roster):
            from graders.intake import roster
            self._roster = roster.read(Path(self.roster))
        return self._roster

    def roster_header(self) -> tuple[str, ...]:
        roster = self.load_roster()
        return roster.header if roster else ()

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

    def people(self, gradebook: Gradebook, columns: list[tuple]) -> list[Person]:
        """Gradebook students (with their manifest rows and roster entry), then roster students with no
        hand-in."""
        rows = identity.read_manifest(self._manifest_path())
        by_student: dict[str, list[dict]] = {}
        for row in rows:
            by_student.setdefault(row.get("student_id", ""), []).append(row)
        wanted = [str(s) for s in self.student]
        people = []
        for student in gradebook.students:
            if wanted and student.id not in wanted:
                continue
            mine = by_student.get(student.id, [])
            who = identity.from_manifest(student.id, mine)
            who.first_name, who.last_name = student.first_name or "", student.last_name or ""
            who.name = who.name or " ".join(p for p in (who.first_name, who.last_name) if p)
            if student.email:
                who.ids.setdefault("email", student.email)
            lms_user_id = (student.lms_user_id or "").strip()
            if lms_user_id.isdigit() and who.lms in ("", "canvas"):
                who.ids.setdefault("canvas_user_id", lms_user_id)   # nbgrader's LTI field: Canvas's user id
            person = Person(who)
            notebook_rows = {r.get("notebook", ""): r for r in mine}
            for column, aname, nbname, max_score in columns:
                cell = self._cell(gradebook, student.id, aname, nbname, max_score, notebook_rows.get(nbname))
                person.cells[column] = cell
                if cell.why_empty:
                    self.warn(f"{student.id} {column}: left empty, {cell.why_empty}")
            people.append(person)
        for who in identity.join([p.who for p in people], self.load_roster()):
            people.append(Person(who, {c[0]: Cell(None, c[3], due=self._due_for(c[2], gradebook.find_assignment(
                c[1])), why_empty="no hand-in") for c in columns}))
        return people

    def _cell(self, gradebook, sid, aname, nbname, max_score, manifest_row) -> Cell:
        assignment = gradebook.find_assignment(aname)
        due = self._due_for(nbname, assignment)
        try:
            nb = gradebook.find_submission_notebook(nbname, aname, sid)
        except MissingEntry:
            return Cell(None, max_score, due=due, why_empty="no submission")
        if manifest_row is not None:
            # collect saw this hand-in: its time is what the LMS recorded, or none (Canvas). nbgrader's
            # timestamp is then collect's fallback, not a submission time, so it is not used.
            text = (manifest_row.get("submitted_at") or "").strip()
            when, flag = (parse_due(text) if text else None), _flag(manifest_row.get("late"))
        else:
            when, flag = _aware(nb.assignment.timestamp), None
        cell = Cell(max(0.0, nb.score - (nb.late_submission_penalty or 0.0)), max_score, when, due,
                    late_flag=flag)
        if nb.flagged:
            cell.score, cell.why_empty = None, "under review (flagged in the gradebook)"
        elif nb.needs_manual_grade:
            cell.score, cell.why_empty = None, "not graded yet (a failed run or a manual grade missing)"
        return cell

    # -- who goes in the file -------------------------------------------------------------------
    def key(self, person: Person) -> str:
        """The value the importer matches this person on ("" when there is none)."""
        return person.student_id or next(iter(person.who.ids.values()), "")

    def importable(self, people: list[Person]) -> list[Person]:
        """The people the file holds; each one left out is named (before the file is written). With a
        roster, a person it lacks is one the importer cannot match either."""
        kept = []
        for p in people:
            if self.roster and p.who.status in (identity.NOT_ON_ROSTER, identity.AMBIGUOUS):
                self.warn(f"NOT IN THE FILE: {p.label}: {p.who.status}: {p.who.note}")
            elif not self.key(p):
                self.warn(f"NOT IN THE FILE: {p.label}: {self.missing_key_reason()}")
            else:
                kept.append(p)
        return kept

    def missing_key_reason(self) -> str:
        return "no identifier"

    def say_roster(self, people: list[Person]) -> None:
        """Names every roster student without a hand-in, and says once where lateness is only a flag."""
        for p in people:
            if p.who.status == identity.NO_HAND_IN:
                self.warn(f"NO HAND-IN: {p.label}: on the roster, nothing in the gradebook; its scores are empty")
        flagged = [(p, c) for p in people for c, cell in p.cells.items()
                   if cell.minutes_late is None and cell.late_flag is not None]
        if flagged:
            p, c = flagged[0]
            self.warn(f"lateness of {len(flagged)} hand-in(s) (first: {p.label} {c}) is the LMS's late flag only "
                      "(Canvas records no submission time): late says yes/no, minutes late stays empty")

    # -- writing --------------------------------------------------------------------------------
    def header(self, columns: list[str]) -> list[str]:
        return (["Student ID", "Name", "Email", "LMS ID"] + columns + ["Total"]
                + [f"{c} minutes late" for c in columns] + [f"{c} late" for c in columns] + ["Status"])

    def row(self, person: Person, columns: list[str]) -> list[str]:
        who = person.who
        lms_id = who.id(identity.LMS_ID_KIND.get(who.lms, "")) or next(iter(who.ids.values()), "")
        return ([who.student_id, who.name, who.id("email"), lms_id]
                + [_fmt(person.cells[c].score) for c in columns] + [_fmt(person.total)]
                + [_fmt(person.cells[c].minutes_late) for c in columns]
                + [person.cells[c].late for c in columns] + [who.status])

    def extra_rows(self, columns: list[tuple]) -> list[list[str]]:
        return []

    def default_name(self) -> str:
        return "grades_lms.csv"

    def generic_importable(self, people: list[Person]) -> list[Person]:
        """The generic file holds everyone; its Status column marks who the roster lacks."""
        for p in people:
            if p.who.status in (identity.NOT_ON_ROSTER, identity.AMBIGUOUS):
                self.warn(f"{p.who.status.upper()}: {p.label}: {p.who.note}")
        return people

    def choose(self, people: list[Person]) -> None:
        """Per LMS: decide the key column from what the people carry (or refuse)."""

    def export(self, gradebook: Gradebook) -> None:
        self.warnings = []
        cols = self.columns(gradebook)
        names = [c[0] for c in cols]
        self.cols = cols
        everyone = self.people(gradebook, cols)
        self.say_roster(everyone)
        self.choose(everyone)
        people = self.generic_importable(everyone) if self.keeps_everyone else self.importable(everyone)
        dest = Path(self.to or self.default_name())
        self.write(dest, self.header(names), self.extra_rows(cols), [self.row(p, names) for p in people])
        self.after_export(dest, everyone, names, people)
        self.log.info("Wrote %s (%d rows, %d notebooks)", dest, len(people), len(names))
        self.written = dest

    def write(self, dest: Path, header: list[str], extra: list[list[str]], rows: list[list[str]]) -> None:
        with open(dest, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows(extra)
            writer.writerows(rows)

    def after_export(self, dest: Path, everyone: list[Person], columns: list[str], written: list[Person]) -> None:
        pass

    def write_lateness(self, dest: Path, everyone: list[Person], columns: list[str], written: list[Person]) -> Path:
        """``<file>_lateness.csv``: lateness and roster status of every person, in the file or not (an
        extra column in the import file would become a grade item in Canvas, Blackboard, Brightspace)."""
        late = dest.with_name(dest.stem + "_lateness.csv")
        inside = {id(p) for p in written}
        with open(late, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["Student ID", "ID", "notebook", "submitted_at", "due", "minutes_late", "late", "name",
                             "status", "in file", "note"])
            for p in everyone:
                for c in columns:
                    cell = p.cells[c]
                    writer.writerow([p.student_id, self.key(p), c,
                                     cell.submitted_at.isoformat() if cell.submitted_at else "",
                                     cell.due.isoformat() if cell.due else "", _fmt(cell.minutes_late), cell.late,
                                     p.who.name, p.who.status, "yes" if id(p) in inside else "no", p.who.note])
        return late


def _item(header: tuple[str, ...], notebook: str, pattern: str) -> str | None:
    """The roster's own column for ``notebook`` (its title then the LMS's decoration), if it has one."""
    for column in header:
        if re.fullmatch(re.escape(notebook) + pattern, column.strip()):
            return column.strip()
    return None


def _check_points(plugin: LmsExport, notebook: str, column: str, pattern: str, max_score: float) -> None:
    """Warns where the LMS's item has other points than the notebook: scores are not rescaled."""
    m = re.search(pattern, column)
    if m and abs(float(m.group(1)) - max_score) > 1e-9:
        plugin.warn(f"{notebook}: the LMS's column {column!r} is out of {m.group(1)} points, the notebook out of "
                    f"{_fmt(max_score)}; scores are written as they are (points out of {_fmt(max_score)})")


class CanvasExport(LmsExport):
    """Canvas's gradebook import (lms-formats.md, Canvas, "Gradebook CSV import"): ``Student, ID, SIS User
    ID, SIS Login ID, Section``, the ``Points Possible`` row, a column per notebook (the roster's
    ``Title (id)`` column when the roster has one, else the title: a new title becomes an assignment) and
    ``Final Points`` (one of Canvas's own totals, ignored on import). ``ID`` is Canvas's user id only;
    an institution number goes in ``SIS User ID``. A row without any of the three ids is left out."""

    lms = "canvas"
    keeps_everyone = False

    def default_name(self) -> str:
        return "grades_canvas.csv"

    def key(self, person):
        return person.who.id("canvas_user_id") or person.who.id("sis_user_id") or person.who.id("sis_login_id")

    def missing_key_reason(self):
        return ("no Canvas user id, SIS User ID or SIS Login ID (a Canvas download gives the user id; else export "
                "the Canvas gradebook and pass it as --roster)")

    def choose(self, people):
        header = self.roster_header()
        self.titles = {c: _item(header, c, r" \(\d+\)") or c for c, *_ in self.cols}

    def header(self, columns):
        titles = getattr(self, "titles", {})
        return ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] + [titles.get(c, c) for c in columns] + [
            "Final Points"]

    def extra_rows(self, cols):
        return [["Points Possible", "", "", "", ""] + [_fmt(c[3]) for c in cols]
                + [_fmt(sum(c[3] for c in cols))]]

    def row(self, person, columns):
        who = person.who
        name = f"{who.last_name}, {who.first_name}" if who.last_name else who.name or who.student_id
        return ([name, who.id("canvas_user_id"), who.id("sis_user_id"), who.id("sis_login_id"), who.section]
                + [_fmt(person.cells[c].score) for c in columns] + [_fmt(person.total)])

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)


# Moodle's "Map to" user fields and the column each is written in (lms-formats.md, Moodle, "Grade CSV import")
MOODLE_FIELDS = {"username": ("Username", "username"), "email": ("Email address", "email address"),
                 "id_number": ("ID number", "ID number"), "moodle_user_id": ("User ID", "User ID")}


class MoodleExport(LmsExport):
    """Moodle's "Import grades: CSV file" (lms-formats.md, Moodle, "Grade CSV import"): the first column is
    the user field every row has (username, email address, ID number or user id); map it to that field,
    each notebook column to a grade item, and ``Total``, lateness and ``Status`` to "Ignore". One unknown
    or blank identifier aborts Moodle's whole import, so a person without it is left out (and named), and
    a file nobody could be matched in is not written."""

    lms = "moodle"
    keeps_everyone = False

    def default_name(self) -> str:
        return "grades_moodle.csv"

    def choose(self, people):
        with_work = [p for p in people if p.who.status != identity.NO_HAND_IN]
        candidates = [p for p in with_work if p.who.status not in (identity.NOT_ON_ROSTER, identity.AMBIGUOUS)]
        counts = {k: sum(1 for p in candidates or people if p.who.id(k)) for k in MOODLE_FIELDS}
        self.kind = max(MOODLE_FIELDS, key=lambda k: counts[k])     # ties: the order of MOODLE_FIELDS
        if with_work and counts[self.kind] == 0:
            raise ExportRefused(
                "Moodle: no identifier Moodle can match (username, email address, ID number, user id) for anyone. "
                "A Moodle download gives only each student's full name and participant id, and Moodle aborts the "
                "whole import at the first unknown user. Export the roster from Moodle: Grades > Export > Plain "
                "text file (tick ID number and Email address under identity fields), or Participants > select all "
                "> 'Download table data as' CSV; then run again with --roster FILE. Nothing was written.")
        column, field_name = MOODLE_FIELDS[self.kind]
        self.warn(f"Moodle: Grades > Import > CSV file; Map from '{column}' to '{field_name}'; map each notebook "
                  "column to its grade item and every other column to 'Ignore'")

    def key(self, person):
        return person.who.id(getattr(self, "kind", "email"))

    def missing_key_reason(self):
        column = MOODLE_FIELDS[getattr(self, "kind", "email")][0]
        return (f"no {column} (Moodle would abort the whole import); export Moodle's roster and pass it as "
                "--roster")

    def header(self, columns):
        return ([MOODLE_FIELDS[self.kind][0], "Full name"] + columns + ["Total"]
                + [f"{c} minutes late" for c in columns] + [f"{c} late" for c in columns] + ["Status"])

    def row(self, person, columns):
        return ([self.key(person), person.who.name]
                + [_fmt(person.cells[c].score) for c in columns] + [_fmt(person.total)]
                + [_fmt(person.cells[c].minutes_late) for c in columns]
                + [person.cells[c].late for c in columns] + [person.who.status])

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)


class BlackboardExport(LmsExport):
    """Blackboard Learn's Grade Center upload (lms-formats.md, Blackboard, "Grade Center upload"): ``Last
    Name, First Name, Username`` and ``<Name> [Total Pts: N] |<column id>`` per notebook; ``Username`` is
    the key. The column id comes from ``column_ids`` (``--column-id NOTEBOOK=ID``), else from the
    roster's own Grade Center download when it has that column; without one the header is
    ``<Name> [Total Pts: N]`` (unverified: Blackboard's help says such a column is added as a new one)."""

    lms = "blackboard"
    keeps_everyone = False
    column_ids = Dict({}, help="notebook -> Grade Center column id").tag(config=True)

    def default_name(self) -> str:
        return "grades_blackboard.csv"

    def key(self, person):
        return person.who.id("username")

    def missing_key_reason(self):
        return ("no Blackboard username (a Blackboard download gives it; else pass the Grade Center download as "
                "--roster)")

    def choose(self, people):
        header = self.roster_header()
        self.titles = {}
        for c, _, _, max_score in self.cols:
            column_id = self.column_ids.get(c)
            found = _item(header, c, r" \[Total Pts: [^\]]*\] \|\d+")
            if not column_id and found:
                column_id = found.rsplit("|", 1)[1]
                _check_points(self, c, found, r"Total Pts: ([\d.]+)", max_score)
            if not column_id:
                self.warn(f"Blackboard: no column id for {c}: written as a new column '{c} [Total Pts: "
                          f"{_fmt(max_score)}]'; to update an existing column give --column-id {c}=ID")
            self.titles[c] = f"{c} [Total Pts: {_fmt(max_score)}]" + (f" |{column_id}" if column_id else "")

    def header(self, columns):
        return ["Last Name", "First Name", "Username"] + [self.titles[c] for c in columns]

    def row(self, person, columns):
        who = person.who
        first, last = who.first_name, who.last_name
        if not (first or last):
            first, _, last = who.name.rpartition(" ")
        return [last, first, who.id("username")] + [_fmt(person.cells[c].score) for c in columns]

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)


class BrightspaceExport(LmsExport):
    """D2L Brightspace's grade import (lms-formats.md, Brightspace, "Grade import CSV"): ``OrgDefinedId``
    (else ``Username``) with the ``#`` prefix its exports use, ``<Item> Points Grade <Numeric
    MaxPoints:N>`` per notebook, and the last column ``End-of-Line Indicator`` holding ``#``."""

    lms = "brightspace"
    keeps_everyone = False
    FIELDS = {"org_defined_id": "OrgDefinedId", "username": "Username"}

    def default_name(self) -> str:
        return "grades_brightspace.csv"

    def choose(self, people):
        candidates = [p for p in people if p.who.status not in (identity.NOT_ON_ROSTER, identity.AMBIGUOUS,
                                                                identity.NO_HAND_IN)]
        self.kind = max(self.FIELDS, key=lambda k: sum(1 for p in candidates if p.who.id(k)))
        if candidates and not any(p.who.id(self.kind) for p in candidates):
            raise ExportRefused(
                "Brightspace: no OrgDefinedId or Username for anyone. Export the roster from Brightspace: Grades > "
                "Export, with 'Org Defined ID' and 'Username' ticked, and run again with --roster FILE. "
                "Nothing was written.")
        header = self.roster_header()
        self.titles = {}
        for c, _, _, max_score in self.cols:
            self.titles[c] = (_item(header, c, r" Points Grade <Numeric MaxPoints:[^>]*>")
                              or f"{c} Points Grade <Numeric MaxPoints:{_fmt(max_score)}>")
            _check_points(self, c, self.titles[c], r"MaxPoints:([\d.]+)", max_score)

    def key(self, person):
        return person.who.id(getattr(self, "kind", "org_defined_id"))

    def missing_key_reason(self):
        return ("no OrgDefinedId or Username (export Brightspace's grades with both ticked and pass it as "
                "--roster)")

    def header(self, columns):
        return [self.FIELDS[self.kind]] + [self.titles[c] for c in columns] + ["End-of-Line Indicator"]

    def row(self, person, columns):
        return ["#" + self.key(person)] + [_fmt(person.cells[c].score) for c in columns] + ["#"]

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)


EXPORTERS = {"generic": LmsExport, "canvas": CanvasExport, "moodle": MoodleExport,
             "blackboard": BlackboardExport, "brightspace": BrightspaceExport}
