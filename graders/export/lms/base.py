"""The generic LMS file and what every LMS's export does: read nbgrader's gradebook (scores, lateness,
identifiers, roster), decide who goes in the file and write it; each LMS's module changes only its columns, its
key and its checks."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins.export import ExportPlugin
from traitlets import Dict, Unicode

from graders.export import identity
from graders.export.lms.cells import Cell, Person, aware, fmt, late_flag, parse_due


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
        return parse_due(text) if text else aware(assignment.duedate)

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
            when, flag = (parse_due(text) if text else None), late_flag(manifest_row.get("late"))
        else:
            when, flag = aware(nb.assignment.timestamp), None
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
                + [fmt(person.cells[c].score) for c in columns] + [fmt(person.total)]
                + [fmt(person.cells[c].minutes_late) for c in columns]
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
                                     cell.due.isoformat() if cell.due else "", fmt(cell.minutes_late), cell.late,
                                     p.who.name, p.who.status, "yes" if id(p) in inside else "no", p.who.note])
        return late
