"""Moodle's grade CSV import file."""

from __future__ import annotations

from graders.export import identity
from graders.export.lms.base import LmsExport
from graders.export.lms.cells import ExportRefused, fmt

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
                + [fmt(person.cells[c].score) for c in columns] + [fmt(person.total)]
                + [fmt(person.cells[c].minutes_late) for c in columns]
                + [person.cells[c].late for c in columns] + [person.who.status])

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)
