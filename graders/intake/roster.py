"""The roster the instructor already has from the LMS: who is enrolled, under which identifiers.

``read(path)`` sniffs which LMS wrote the file from its header row (rules and sources in
``/work/shared/reference/lms-formats.md``; the columns each export has are listed in
:data:`EXPECTED`) and returns a :class:`Roster` whose members carry every identifier the file has,
under the kinds of :data:`KINDS`. ``collect --roster`` joins hand-ins to it; ``export --roster``
fills the columns each LMS importer matches on from it.

Files are read as the LMSs write them: UTF-8 with or without a BOM, UTF-16 with a BOM (Blackboard's
``.xls`` download is tab-separated UTF-16 LE), comma, semicolon or tab separated.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from graders.errors import InputError


class RosterError(InputError):
    """A roster that cannot be read: the message names the file and the columns expected."""


KINDS = ("canvas_user_id", "sis_user_id", "sis_login_id", "integration_id", "moodle_user_id", "username",
         "id_number", "email", "org_defined_id", "sid")

# kinds compared without case (a login or an address is not case-sensitive in any of these LMSs)
_CASELESS = {"email", "username", "sis_login_id"}
# kinds that are integers to their LMS (Canvas's importer reads ``ID`` with ``to_i``)
_NUMERIC = {"canvas_user_id", "moodle_user_id"}

EXPECTED = {
    "canvas": "Canvas gradebook export: Student, ID, SIS User ID, SIS Login ID[, Integration ID], Section, …",
    "moodle": "Moodle grade export or participants list: First name, Last name, ID number and/or Email address"
              "[, Username][, Groups]",
    "blackboard": "Blackboard Grade Center download: Last Name, First Name, Username[, Student ID], …",
    "brightspace": "Brightspace grades export: OrgDefinedId and/or Username, Last Name, First Name[, Email], …, "
                   "End-of-Line Indicator",
    "gradescope": "Gradescope roster: Name (or First Name, Last Name), Email, SID[, Role]",
    "classroom": "Google Classroom grades CSV: Last Name, First Name, Email Address",
    "generic": "generic CSV: student_id, name (or first_name, last_name), email, or columns named after the "
               "identifier kinds (" + ", ".join(KINDS) + ")",
}


@dataclass(frozen=True)
class Member:
    name: str                      # "First Last" as the LMS shows it
    ids: Mapping[str, str]         # kind -> value, only the kinds the file has (non-empty)
    first_name: str = ""
    last_name: str = ""
    section: str = ""
    groups: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# Names: matched without case or spacing differences, never without their accents

def _norm(text: str) -> str:
    text = unicodedata.normalize("NFC", text).casefold()
    text = re.sub(r"\s*,\s*", ", ", text)
    return " ".join(text.split())


def squeeze(text: str) -> str:
    """Canvas's file-name form of a sortable name: ``gsub(/[^[[:word:]]]/, "")`` then ``downcase``
    (lms-formats.md, Canvas: "File name"). Letters of any script stay (``müllerjosé``)."""
    return re.sub(r"[^\w]", "", unicodedata.normalize("NFC", text)).casefold()


def moodle_clean(text: str) -> str:
    """What Moodle's ``clean_filename`` leaves of a name (lms-formats.md, Moodle: "clean_filename
    removes … & < > \" ` | ' : \\ /"): ``Seán O'Brien`` -> ``Seán OBrien``."""
    return re.sub(r"[&<>\"`|':\\/]", "", text)


def _split_sortable(sortable: str) -> tuple[str, str]:
    """``"Lovelace, Ada"`` -> ("Ada", "Lovelace"); without a comma, everything is the first name."""
    last, sep, first = sortable.partition(",")
    return (first.strip(), last.strip()) if sep else (sortable.strip(), "")


def _name_keys(m: Member) -> tuple[set[str], set[str]]:
    """(normalised full forms, squeezed sortable forms) a name given for ``m`` may take."""
    first, last = m.first_name, m.last_name
    if not (first or last):                      # "Ada Lovelace": the last word is the surname, as Canvas guesses
        words = m.name.split()
        first, last = " ".join(words[:-1]), (words[-1] if words else "")
    forms = {m.name, f"{first} {last}", f"{last}, {first}", f"{last} {first}"}
    full = {_norm(f) for f in forms if f.strip(" ,")}
    full |= {_norm(moodle_clean(f)) for f in forms if f.strip(" ,")}
    squeezed = {squeeze(f"{last}, {first}")} - {""}
    return full, squeezed


@dataclass
class Roster:
    lms: str                       # canvas | moodle | blackboard | brightspace | classroom | gradescope | generic
    path: Path
    members: list[Member]
    header: tuple[str, ...] = ()   # the file's columns (an LMS export's item columns carry the LMS's item ids)
    _keys: list = field(default_factory=list, repr=False, compare=False)

    def kinds(self) -> list[str]:
        """The identifier kinds this roster carries, in :data:`KINDS` order."""
        have = {k for m in self.members for k in m.ids}
        return [k for k in KINDS if k in have]

    def find(self, kind: str, value: str) -> list[Member]:
        """Members whose ``kind`` identifier equals ``value`` (emails and logins without case,
        Canvas and Moodle user ids as numbers, Brightspace's ``#`` prefix ignored)."""
        if kind not in KINDS:
            raise KeyError(f"unknown identifier kind {kind!r}; one of {', '.join(KINDS)}")
        want = _id_key(kind, value)
        return [m for m in self.members if want and _id_key(kind, m.ids.get(kind, "")) == want]

    def by_name(self, name: str) -> list[Member]:
        """Members called ``name``: NFC, case and spacing ignored; ``First Last``, ``Last, First`` and
        Canvas's squeezed sortable form (``müllerjosé``) all match; accents are never stripped, so
        ``José`` and ``Jose`` are two people. Moodle's ``clean_filename`` form (no apostrophe) matches."""
        if not self._keys or len(self._keys) != len(self.members):
            self._keys = [_name_keys(m) for m in self.members]
        full, sq = _norm(name), squeeze(name)
        return [m for m, (names, squeezed) in zip(self.members, self._keys, strict=True)
                if full in names or _norm(moodle_clean(name)) in names or (sq and sq in squeezed)]


def _id_key(kind: str, value: str) -> str:
    value = (value or "").strip().lstrip("#").strip()
    if kind in _CASELESS:
        return value.casefold()
    if kind in _NUMERIC and value.isdigit():
        return str(int(value))
    return value


# ---------------------------------------------------------------------------------------------
# Reading the file

def _decode(path: Path) -> str:
    data = path.read_bytes()
    if data[:2] == b"PK" or data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise RosterError(f"roster {path}: a spreadsheet (xlsx/ods/xls), not a CSV. Export the roster from the LMS "
                          "as CSV (or tab-separated text), or save it as CSV from your spreadsheet program.")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16")
    if len(data) > 3 and data[1:2] == b"\x00" and data[3:4] == b"\x00":   # UTF-16 LE without its BOM
        return data.decode("utf-16-le")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")   # an old Excel "CSV": keep going, names may be off


def _rows(text: str) -> list[list[str]]:
    first = text.splitlines()[0] if text.strip() else ""
    delimiter = max("\t,;", key=lambda d: len(next(csv.reader([first], delimiter=d), [])))
    rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text), delimiter=delimiter)]
    return [r for r in rows if any(r)]


def _column(header: list[str], *names: str, contains: bool = False) -> int | None:
    """Index of the first column whose (case-insensitive) name is one of ``names``."""
    wanted = [n.casefold() for n in names]
    for i, h in enumerate(header):
        h = h.casefold()
        if (any(w in h for w in wanted) if contains else h in wanted):
            return i
    return None


def sniff(header: list[str]) -> str | None:
    """Which LMS wrote a file with this header row, or None."""
    has = lambda *names: _column(header, *names) is not None  # noqa: E731
    if has("OrgDefinedId", "End-of-Line Indicator"):
        return "brightspace"
    # gradebook_importer.rb: "column 0 contains Student, column 1 contains ID"
    if len(header) > 1 and "Student" in header[0] and header[1].strip() == "ID":
        return "canvas"
    if "Username" in header and "Last Name" in header and "First Name" in header:   # Moodle says "First name"
        return "blackboard"
    if (("ID number" in header or "Email address" in header or "Username" in header)
            and "First name" in header and "Last name" in header):
        return "moodle"
    if has("SID") and has("Email"):
        return "gradescope"
    if has("Email Address") and has("First Name") and has("Last Name"):
        return "classroom"
    if has("student_id", "email", *KINDS):
        return "generic"
    return None


# Per LMS: column (any case) -> kind, and where the names are.
_ID_COLUMNS = {
    "canvas": {"ID": "canvas_user_id", "SIS User ID": "sis_user_id", "SIS Login ID": "sis_login_id",
               "Integration ID": "integration_id"},
    "moodle": {"ID number": "id_number", "Username": "username", "Email address": "email",
               "User ID": "moodle_user_id"},
    "blackboard": {"Username": "username", "Student ID": "sid", "Email": "email"},
    "brightspace": {"OrgDefinedId": "org_defined_id", "Username": "username", "Email": "email"},
    "gradescope": {"SID": "sid", "Email": "email"},
    "classroom": {"Email Address": "email"},
    "generic": {"student_id": "sid", "sid": "sid", "email": "email", **{k: k for k in KINDS}},
}
_STAFF = {"instructor", "teacher", "non-editing teacher", "editingteacher", "ta", "teaching assistant", "manager",
          "reader", "grader", "course creator", "designer"}


def _member(lms: str, header: list[str], row: list[str]) -> Member | None:
    cell = dict(zip([h.casefold() for h in header], row, strict=False))
    get = lambda *names: next((cell[n.casefold()] for n in names if cell.get(n.casefold())), "")  # noqa: E731
    ids = {}
    for column, kind in _ID_COLUMNS[lms].items():
        value = get(column)
        if lms == "brightspace":
            value = value.lstrip("#")        # lms-formats.md, Brightspace: "exports prefix values with #"
        if value and kind not in ids:
            ids[kind] = value
    if lms == "canvas":
        if "Points Possible" in row[0] or not ids.get("canvas_user_id"):
            return None                      # "    Points Possible", "Muted" and other non-student rows
        first, last = _split_sortable(row[0])
    else:
        first, last = get("First name", "first_name", "Given name"), get("Last name", "last_name", "Surname")
    name = " ".join(p for p in (first, last) if p) or get("Name", "Full name", "name") or get("Student")
    if not name and not ids:
        return None
    role = get("Role", "Roles").casefold()
    if role and not any("student" in r or "learner" in r for r in role.split(",")) and \
            any(r.strip() in _STAFF for r in role.split(",")):
        return None                          # an instructor or TA listed in the roster
    groups = tuple(g.strip() for g in get("Groups", "Group").split(",") if g.strip())
    return Member(name=name, ids=ids, first_name=first, last_name=last, section=get("Section", "Sections"),
                  groups=groups)


def read(path: Path) -> Roster:
    """The roster in ``path``; :class:`RosterError` if it is none of the known exports."""
    path = Path(path)
    try:
        rows = _rows(_decode(path))
    except OSError as error:
        raise RosterError(f"roster {path}: cannot read it ({error.strerror or error})") from error
    if not rows:
        raise RosterError(f"roster {path}: the file is empty. " + _expected())
    header = rows[0]
    lms = sniff(header)
    if lms is None:
        raise RosterError(f"roster {path}: cannot tell which LMS exported it; its columns are "
                          f"{', '.join(repr(h) for h in header)}. " + _expected())
    members = [m for m in (_member(lms, header, r) for r in rows[1:]) if m is not None]
    if not members:
        raise RosterError(f"roster {path}: read as a {EXPECTED[lms]}, but it lists no student.")
    return Roster(lms, path, members, tuple(header))


def _expected() -> str:
    return "Expected one of: " + "; ".join(EXPECTED.values()) + "."
