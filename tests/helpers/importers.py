"""Each LMS's grade importer, as /work/shared/reference/lms-formats.md states its rules, to check our exports.

A validator reads a file the way that importer does and returns what it would do: which roster member each
row updates (and how it found them), and the grade each item column gives. Where the importer would refuse
the file, or abort the import, it raises :class:`Rejected` with the importer's reason. Rosters are
``graders.intake.roster.Roster`` objects, standing for the people the LMS knows.

These are deliberately strict where a real importer would do something quietly wrong: a Canvas ``ID``
that is not a Canvas user id is refused (Canvas would read it as one and may update someone else).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from graders.intake.roster import Member, Roster


class Rejected(AssertionError):
    """The importer would refuse this file or abort the import."""


@dataclass
class Imported:
    grades: dict[str, dict[str, str]] = field(default_factory=dict)   # member's key -> item -> value
    how: dict[str, str] = field(default_factory=dict)                 # member's key -> how it was matched
    items: dict[str, str] = field(default_factory=dict)               # item column -> points possible ("" unknown)
    new_items: list[str] = field(default_factory=list)                # columns the LMS would create


def _table(path: Path, delimiter: str | None = None) -> list[list[str]]:
    data = Path(path).read_bytes()
    text = data.decode("utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data.decode("utf-8-sig")
    if delimiter is None:
        delimiter = "\t" if "\t" in text.splitlines()[0] else ","
    return [r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if any(c.strip() for c in r)]


def _grade(value: str, where: str, max_points: str = "") -> str:
    value = value.strip()
    if value in ("", "-"):
        return value                                  # "no change" (Canvas) / "No grade" (Moodle)
    try:
        number = float(value)
    except ValueError:
        raise Rejected(f"{where}: {value!r} is not a grade") from None
    if max_points and number > float(max_points):
        raise Rejected(f"{where}: {value} is more than the item's {max_points} points")
    return value


def _ruby_to_i(text: str) -> int:
    """Ruby's String#to_i: the leading digits, else 0."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


# ---------------------------------------------------------------------------------------------
# Canvas: lms-formats.md, Canvas, "Gradebook CSV import (gradebook_importer.rb)"

_CANVAS_IGNORED = re.compile(r"(Current|Final|Unposted|Override) (Score|Points|Grade)")


def canvas_import(path: Path, roster: Roster) -> Imported:
    rows = _table(path, ",")
    header = rows[0]
    # "column 0 contains Student, column 1 contains ID"
    if len(header) < 2 or "Student" not in header[0] or "ID" not in header[1]:
        raise Rejected(f"Canvas: the header must start with Student, ID; it is {header[:2]}")
    # "the last identity column contains Section"
    section = next((i for i, h in enumerate(header) if "Section" in h), None)
    if section is None:
        raise Rejected("Canvas: no Section column ends the identity columns")
    identity = header[:section + 1]
    col = {h: i for i, h in enumerate(identity)}
    items = [(i, h) for i, h in enumerate(header) if i > section and not _CANVAS_IGNORED.search(h)]
    out = Imported()
    known = {_ruby_to_i(m.ids.get("canvas_user_id", "")): m for m in roster.members if m.ids.get("canvas_user_id")}
    for _, h in items:
        out.items[h] = ""
        if not re.search(r"\(\d+\)$", h):
            out.new_items.append(h)                 # "an unknown title creates a new assignment"
    for r in rows[1:]:
        r = r + [""] * (len(header) - len(r))
        if "Points Possible" in r[0]:               # "A row whose first cell contains Points Possible"
            for i, h in items:
                out.items[h] = _grade(r[i], f"Canvas Points Possible {h}")
            continue
        member, how = _canvas_match(r, col, known, roster)
        key = member.ids["canvas_user_id"]
        if key in out.grades:
            raise Rejected(f"Canvas: two rows update {member.name} ({key})")
        out.how[key] = how
        out.grades[key] = {h: _grade(r[i], f"Canvas row {r[0]!r} {h}", out.items.get(h, "")) for i, h in items}
    return out


def _canvas_match(r: list[str], col: dict, known: dict, roster: Roster) -> tuple[Member, str]:
    """"matched by ID = Canvas's internal user id (to_i), then SIS User ID, then SIS Login ID, then the name"."""
    raw = r[col["ID"]].strip() if "ID" in col else ""
    if raw:
        if _ruby_to_i(raw) in known:
            return known[_ruby_to_i(raw)], "ID"
        raise Rejected(f"Canvas: ID {raw!r} (row {r[0]!r}) is no Canvas user id of this course: Canvas reads ID as "
                       "its own user id, so an institution number there can update someone else or nobody")
    for column, kind in (("SIS User ID", "sis_user_id"), ("SIS Login ID", "sis_login_id")):
        value = r[col[column]].strip() if column in col else ""
        if value:
            found = roster.find(kind, value)
            if len(found) == 1:
                return found[0], column
            raise Rejected(f"Canvas: {column} {value!r} (row {r[0]!r}) matches {len(found)} students")
    found = roster.by_name(r[0])
    if len(found) == 1:
        return found[0], "name"
    raise Rejected(f"Canvas: row {r[0]!r} matches {len(found)} students by name and has no id")


# ---------------------------------------------------------------------------------------------
# Moodle: lms-formats.md, Moodle, "Grade CSV import": "Map from any column, Map to one of User ID, username,
# ID number, email address. An unknown or blank identifier aborts the whole import"

MOODLE_MAP_TO = {"userid": "moodle_user_id", "username": "username", "idnumber": "id_number", "email": "email"}


def moodle_import(path: Path, roster: Roster, map_from: str, map_to: str, items: list[str]) -> Imported:
    rows = _table(path, ",")
    header = rows[0]
    if map_from not in header:
        raise Rejected(f"Moodle: no column {map_from!r} to map from; columns {header}")
    kind = MOODLE_MAP_TO[map_to]
    at = header.index(map_from)
    missing = [i for i in items if i not in header]
    if missing:
        raise Rejected(f"Moodle: no column for grade item(s) {missing}")
    out = Imported(items={i: "" for i in items})
    for n, r in enumerate(rows[1:], 2):
        value = r[at].strip() if at < len(r) else ""
        found = roster.find(kind, value) if value else []
        if len(found) != 1:
            raise Rejected(f"Moodle: line {n}: user {value!r} not found ({map_to}): abort whole import")
        key = found[0].ids[kind]
        out.how[key] = map_to
        out.grades[key] = {i: _grade(r[header.index(i)], f"Moodle line {n} {i}") for i in items}
    return out


# ---------------------------------------------------------------------------------------------
# Blackboard: lms-formats.md, Blackboard, "Grade Center upload: CSV or tab-delimited with Last Name, First Name,
# Username, and item columns <Name> [Total Pts: N] |<column id>; Username is the key"

_BB_ITEM = re.compile(r"(?P<name>.+) \[Total Pts: (?P<points>[\d.]+)[^\]]*\](?: \|(?P<id>\d+))?")
_BB_IDENTITY = {"Last Name", "First Name", "Username", "Student ID", "Last Access", "Availability"}


def blackboard_import(path: Path, roster: Roster) -> Imported:
    rows = _table(path)
    header = rows[0]
    for needed in ("Last Name", "First Name", "Username"):
        if needed not in header:
            raise Rejected(f"Blackboard: no {needed!r} column; columns {header}")
    out = Imported()
    items = []
    for i, h in enumerate(header):
        if h in _BB_IDENTITY:
            continue
        m = _BB_ITEM.fullmatch(h)
        if not m:
            raise Rejected(f"Blackboard: column {h!r} is neither an identity column nor '<Name> [Total Pts: N] |id'")
        out.items[h] = m.group("points")
        if not m.group("id"):
            out.new_items.append(h)
        items.append((i, h))
    at = header.index("Username")
    for n, r in enumerate(rows[1:], 2):
        found = roster.find("username", r[at])
        if len(found) != 1:
            raise Rejected(f"Blackboard: line {n}: username {r[at]!r} is not in the course")
        key = found[0].ids["username"]
        out.how[key] = "Username"
        out.grades[key] = {h: _grade(r[i], f"Blackboard line {n} {h}", out.items[h]) for i, h in items}
    return out


# ---------------------------------------------------------------------------------------------
# Brightspace: lms-formats.md, Brightspace, "Grade import CSV: an OrgDefinedId or Username column (exports prefix
# values with #), item columns <Item> Points Grade <Numeric MaxPoints:N>, and a last column End-of-Line Indicator
# holding #"

_D2L_ITEM = re.compile(r"(?P<name>.+) Points Grade <Numeric MaxPoints:(?P<points>[\d.]+)>")
_D2L_IDENTITY = {"OrgDefinedId": "org_defined_id", "Username": "username"}


def brightspace_import(path: Path, roster: Roster) -> Imported:
    rows = _table(path, ",")
    header = rows[0]
    keys = [h for h in header if h in _D2L_IDENTITY]
    if not keys:
        raise Rejected(f"Brightspace: no OrgDefinedId or Username column; columns {header}")
    if header[-1] != "End-of-Line Indicator":
        raise Rejected(f"Brightspace: the last column must be End-of-Line Indicator, not {header[-1]!r}")
    out = Imported()
    items = []
    for i, h in enumerate(header[:-1]):
        if h in _D2L_IDENTITY or h in ("Last Name", "First Name", "Email"):
            continue
        m = _D2L_ITEM.fullmatch(h)
        if not m:
            raise Rejected(f"Brightspace: column {h!r} is not '<Item> Points Grade <Numeric MaxPoints:N>'")
        out.items[h] = m.group("points")
        items.append((i, h))
    column = keys[0]
    kind, at = _D2L_IDENTITY[column], header.index(column)
    for n, r in enumerate(rows[1:], 2):
        if len(r) != len(header) or r[-1] != "#":
            raise Rejected(f"Brightspace: line {n} does not end with the End-of-Line Indicator '#'")
        found = roster.find(kind, r[at].lstrip("#"))
        if not r[at].strip().lstrip("#") or len(found) != 1:
            raise Rejected(f"Brightspace: line {n}: {column} {r[at]!r} is not in the course")
        key = found[0].ids[kind]
        out.how[key] = column
        out.grades[key] = {h: _grade(r[i], f"Brightspace line {n} {h}", out.items[h]) for i, h in items}
    return out


# ---------------------------------------------------------------------------------------------
# Generic: our own format (docs/exporting.md): every row is a hand-in (Student ID) or a roster student marked
# "no hand-in"; Total adds up the scores that are there.

def generic_import(path: Path, notebooks: list[str]) -> dict[str, list[str]]:
    rows = _table(path, ",")
    header = rows[0]
    if header[:4] != ["Student ID", "Name", "Email", "LMS ID"] or header[-1] != "Status":
        raise Rejected(f"generic: unexpected columns {header}")
    out = {}
    for n, r in enumerate(rows[1:], 2):
        if len(r) != len(header):
            raise Rejected(f"generic: line {n} has {len(r)} cells, the header {len(header)}")
        row = dict(zip(header, r, strict=True))
        if not row["Student ID"] and row["Status"] != "no hand-in":
            raise Rejected(f"generic: line {n} has no Student ID and is not a roster student without a hand-in")
        if not row["Status"]:
            raise Rejected(f"generic: line {n} has no Status")
        scores = [float(row[nb]) for nb in notebooks if row[nb]]
        if abs(sum(scores) - float(row["Total"] or 0)) > 1e-9:
            raise Rejected(f"generic: line {n}: Total {row['Total']} is not the sum of {scores}")
        out[row["Student ID"] or row["Name"]] = r
    return out
