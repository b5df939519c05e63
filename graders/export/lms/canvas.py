"""Canvas's gradebook import file."""

from __future__ import annotations

from graders.export.lms.base import LmsExport
from graders.export.lms.cells import fmt, roster_column


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
        self.titles = {c: roster_column(header, c, r" \(\d+\)") or c for c, *_ in self.cols}

    def header(self, columns):
        titles = getattr(self, "titles", {})
        return ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] + [titles.get(c, c) for c in columns] + [
            "Final Points"]

    def extra_rows(self, cols):
        return [["Points Possible", "", "", "", ""] + [fmt(c[3]) for c in cols]
                + [fmt(sum(c[3] for c in cols))]]

    def row(self, person, columns):
        who = person.who
        name = f"{who.last_name}, {who.first_name}" if who.last_name else who.name or who.student_id
        return ([name, who.id("canvas_user_id"), who.id("sis_user_id"), who.id("sis_login_id"), who.section]
                + [fmt(person.cells[c].score) for c in columns] + [fmt(person.total)])

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)
