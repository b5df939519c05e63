"""Blackboard Learn's Grade Center upload file."""

from __future__ import annotations

from traitlets import Dict

from graders.export.lms.base import LmsExport
from graders.export.lms.cells import check_points, fmt, roster_column


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
            found = roster_column(header, c, r" \[Total Pts: [^\]]*\] \|\d+")
            if not column_id and found:
                column_id = found.rsplit("|", 1)[1]
                check_points(self, c, found, r"Total Pts: ([\d.]+)", max_score)
            if not column_id:
                self.warn(f"Blackboard: no column id for {c}: written as a new column '{c} [Total Pts: "
                          f"{fmt(max_score)}]'; to update an existing column give --column-id {c}=ID")
            self.titles[c] = f"{c} [Total Pts: {fmt(max_score)}]" + (f" |{column_id}" if column_id else "")

    def header(self, columns):
        return ["Last Name", "First Name", "Username"] + [self.titles[c] for c in columns]

    def row(self, person, columns):
        who = person.who
        first, last = who.first_name, who.last_name
        if not (first or last):
            first, _, last = who.name.rpartition(" ")
        return [last, first, who.id("username")] + [fmt(person.cells[c].score) for c in columns]

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)
