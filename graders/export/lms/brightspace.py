"""D2L Brightspace's grade import file."""

from __future__ import annotations

from graders.export import identity
from graders.export.lms.base import LmsExport
from graders.export.lms.cells import ExportRefused, check_points, fmt, roster_column


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
            self.titles[c] = (roster_column(header, c, r" Points Grade <Numeric MaxPoints:[^>]*>")
                              or f"{c} Points Grade <Numeric MaxPoints:{fmt(max_score)}>")
            check_points(self, c, self.titles[c], r"MaxPoints:([\d.]+)", max_score)

    def key(self, person):
        return person.who.id(getattr(self, "kind", "org_defined_id"))

    def missing_key_reason(self):
        return ("no OrgDefinedId or Username (export Brightspace's grades with both ticked and pass it as "
                "--roster)")

    def header(self, columns):
        return [self.FIELDS[self.kind]] + [self.titles[c] for c in columns] + ["End-of-Line Indicator"]

    def row(self, person, columns):
        return ["#" + self.key(person)] + [fmt(person.cells[c].score) for c in columns] + ["#"]

    def after_export(self, dest, everyone, columns, written):
        self.write_lateness(dest, everyone, columns, written)
