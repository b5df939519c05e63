"""Who each gradebook student is to the LMS: identifiers from ``collect_manifest.csv`` and a roster.

The export's rows are people, each with the identifiers an importer can match on (kinds of
``graders.intake.roster.KINDS``). They come from, in this order:

1. ``collect_manifest.csv``: the roster-kind columns ``collect --roster`` filled, else ``lms_id`` read as
   the kind its LMS gives (a Canvas user id, a Blackboard username, a Gradescope SID or address; a Moodle
   participant id is no user field, so it gives none), and ``email``;
2. ``--roster`` (the LMS's own export): joined on any identifier both have, else on the full name when
   exactly one roster member has it (an ambiguity is reported, never guessed). Roster values fill what
   the manifest lacks; roster members nobody matched become rows of their own ("no hand-in").

Names never key anything: they are for display, and for the last-resort roster join.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from graders.csvfile import read_rows
from graders.intake.roster import KINDS, Member, Roster

# Status of a person against the roster (a marker in every export, never a silent blank)
ON_ROSTER, NO_ROSTER, NOT_ON_ROSTER, NO_HAND_IN, AMBIGUOUS = (
    "on roster", "no roster given", "not on roster", "no hand-in", "ambiguous")

# lms_id of a manifest row, read as the identifier kind its LMS gives (lms-formats.md, per LMS)
LMS_ID_KIND = {"canvas": "canvas_user_id", "blackboard": "username", "gradescope": "sid"}


@dataclass
class Who:
    """One person in the export."""
    student_id: str                       # nbgrader's id ("" for a roster member who handed nothing in)
    name: str = ""
    first_name: str = ""
    last_name: str = ""
    section: str = ""
    lms: str = ""                         # the LMS the hand-ins came from
    ids: dict[str, str] = field(default_factory=dict)
    status: str = NO_ROSTER
    note: str = ""                        # how the roster join was made, or why it failed

    def id(self, kind: str) -> str:
        return self.ids.get(kind, "")


def lms_name(text: str) -> str:
    """The manifest's ``lms`` as one word: ``"Blackboard Learn"`` -> ``blackboard``, ``"D2L Brightspace"`` ->
    ``brightspace``, ``"Canvas"`` -> ``canvas``; an unknown one lower-cased."""
    text = (text or "").strip().casefold()
    for name, words in (("blackboard", ("blackboard",)), ("brightspace", ("brightspace", "d2l")),
                        ("classroom", ("classroom",)), ("canvas", ("canvas",)), ("moodle", ("moodle",)),
                        ("gradescope", ("gradescope",))):
        if any(w in text for w in words):
            return name
    return text


def read_manifest(path: Path | None) -> list[dict]:
    """``collect_manifest.csv``'s rows (none without one)."""
    return read_rows(path) if path else []


def manifest_ids(row: dict) -> dict[str, str]:
    """Identifier kinds a manifest row gives."""
    ids = {k: row[k].strip() for k in KINDS if (row.get(k) or "").strip()}
    lms_id, lms = (row.get("lms_id") or "").strip(), lms_name(row.get("lms"))
    kind = LMS_ID_KIND.get(lms)
    if lms == "gradescope" and "@" in lms_id:
        kind = "email"                    # lms-formats.md, Gradescope: ":sid: may be … absent" (then the email)
    if kind and lms_id:
        ids.setdefault(kind, lms_id)
    if (row.get("email") or "").strip():
        ids.setdefault("email", row["email"].strip())
    return ids


def from_manifest(student_id: str, rows: list[dict]) -> Who:
    """A person from their manifest rows (several notebooks: the first value of each field wins)."""
    who = Who(student_id)
    for row in rows:
        who.name = who.name or (row.get("name") or "").strip()
        who.lms = who.lms or lms_name(row.get("lms"))
        for kind, value in manifest_ids(row).items():
            who.ids.setdefault(kind, value)
    return who


def _from_member(member: Member, who: Who) -> None:
    who.name = member.name or who.name      # the LMS's roster names people as the LMS shows them
    who.first_name, who.last_name = member.first_name or who.first_name, member.last_name or who.last_name
    who.section = member.section or who.section
    for kind, value in member.ids.items():
        who.ids[kind] = value             # the LMS's own roster is the authority on its identifiers


# An institution's student number under each LMS's name for it: Gradescope's SID, Canvas's SIS User ID,
# Moodle's ID number (lms-formats.md, Canvas: "An institution's student number belongs in SIS User ID").
SAME_NUMBER = {"sid": ("sis_user_id", "id_number"), "sis_user_id": ("sid", "id_number"),
               "id_number": ("sid", "sis_user_id")}


def _match(who: Who, roster: Roster) -> tuple[list[Member], str]:
    """Roster members for ``who``, and how they were found (or why not): an identifier of the same kind,
    else the student number under another LMS's name for it, else the full name. A person whose id of a
    kind the roster lists is not in it is not looked up by name (a namesake would take their grade)."""
    have = roster.kinds()
    for kind in KINDS:
        if who.id(kind) and kind in have:
            found = roster.find(kind, who.id(kind))
            if found:
                return found, f"{kind} {who.id(kind)}"
    unmatched = [k for k in KINDS if who.id(k) and k in have and k != "email"]
    if unmatched:   # an id the roster would list is not there: a name shared with someone else must not decide
        return [], ", ".join(f"its {k} {who.id(k)} is not in {roster.path.name}" for k in unmatched)
    for kind, others in SAME_NUMBER.items():
        for other in others:
            if who.id(kind) and other in have:
                found = roster.find(other, who.id(kind))
                if found:
                    return found, f"{kind} {who.id(kind)} = {other}"
    names = [n for n in (who.name, f"{who.first_name} {who.last_name}".strip()) if n]
    for name in names:
        found = roster.by_name(name)
        if found:
            return found, f"name {name!r}"
    return [], ""


def join(people: list[Who], roster: Roster | None) -> list[Who]:
    """Sets each person's status against ``roster`` and fills their ids from it; returns the roster
    members nobody matched, as people of their own with status ``no hand-in`` (``ambiguous`` where a
    hand-in might be theirs). Two gradebook students matching one roster member are both ambiguous
    (one person split in two, or a wrong join)."""
    if roster is None:
        return []
    claims: dict[int, list[tuple[Who, str]]] = {}
    doubtful: dict[int, list[Who]] = {}       # roster members some hand-in might be: not "no hand-in"
    for who in people:
        found, how = _match(who, roster)
        if len(found) > 1:
            for member in found:
                doubtful.setdefault(id(member), []).append(who)
            who.status = AMBIGUOUS
            who.note = (f"{len(found)} students in {roster.path.name} match {how}: "
                        + "; ".join(f"{m.name} ({', '.join(f'{k} {v}' for k, v in m.ids.items())})" for m in found))
        elif found:
            claims.setdefault(id(found[0]), []).append((who, how))
        else:
            who.status = NOT_ON_ROSTER
            who.note = how or f"no student in {roster.path.name} has its ids or name ({who.name or 'no name'})"
    missing = []
    for member in roster.members:
        claimants = claims.get(id(member), [])
        if len(claimants) == 1:
            who, how = claimants[0]
            _from_member(member, who)
            who.status, who.note = ON_ROSTER, f"matched by {how}"
        elif claimants:
            for who, _how in claimants:
                who.status = AMBIGUOUS
                who.note = (f"{roster.path.name}'s {member.name} is matched by {len(claimants)} gradebook "
                            f"students: {', '.join(w.student_id for w, _ in claimants)}")
        elif id(member) in doubtful:
            who = Who("", status=AMBIGUOUS, note=f"in {roster.path.name}; one of the hand-ins of "
                      f"{', '.join(w.student_id for w in doubtful[id(member)])} may be theirs")
            _from_member(member, who)
            missing.append(who)
        else:
            who = Who("", status=NO_HAND_IN, note=f"in {roster.path.name}, no hand-in in the gradebook")
            _from_member(member, who)
            missing.append(who)
    return missing
