"""``collect --roster``: each hand-in joined to its roster entry (``graders.intake.roster``).

The join goes by the identifier the download carries (Canvas user id, Gradescope SID or e-mail, Blackboard
username, Brightspace id as OrgDefinedId); a download without one (Google Classroom; Moodle, whose participant id
no roster lists; Brightspace when its id is an internal one) is joined by the full name, and only when exactly
one roster entry has that name: two entries are reported, never guessed. What a join gives:

- the roster's identifiers on the hand-in (the manifest's identifier columns; the export's import keys);
- Classroom: the person (a file under a name no roster entry or two roster entries have is reported);
- Moodle: one person across several Moodle assignments (participant ids differ per assignment): the key and
  student id come from the roster's stable id (username, ID number, e-mail);
- Canvas groups: a file named after something other than its user id's roster name is a group's hand-in
  (lms-formats.md, Canvas: "the group name takes the place of the sortable name"); every roster member of that
  group gets it, or a warning says that no member got it but the one whose id is on it.
"""

from __future__ import annotations

import dataclasses

from graders.intake.lms import HandIn, Skipped, safe_id, student_id
from graders.intake.roster import Member, Roster, squeeze

STABLE = ("username", "id_number", "email", "moodle_user_id", "sid", "org_defined_id", "sis_user_id")


def join(hand_ins: list[HandIn], roster: Roster, skipped: list[Skipped], notes: list[str],
         undecided: list[Member] | None = None) -> list[HandIn]:
    """The hand-ins joined to the roster (Canvas group hand-ins copied to each member, Classroom files of an
    ambiguous name dropped and reported); ``undecided`` gets the roster entries an ambiguous name could be."""
    out: list[HandIn] = []
    for h in hand_ins:
        out += _one(h, roster, skipped, notes, undecided if undecided is not None else [])
    return out


def _one(h: HandIn, roster: Roster, skipped: list[Skipped], notes: list[str], undecided: list) -> list[HandIn]:
    if h.lms == "Canvas" and h.lms_id:
        return _canvas(h, roster, notes)
    by_id = _by_id(h, roster)
    if by_id is not None:
        return _take(h, by_id, notes, f"{h.lms} id {h.lms_id}")
    if not h.name:  # blind marking, anonymous grading: nothing to join on
        notes.append(f"{h.student_id}: no name or id the roster has (blind or anonymous): not joined to the roster")
        return [h]
    found = roster.by_name(h.name)
    if len(found) > 1:
        undecided += found
        who = "; ".join(f"{m.name} ({_ids(m)})" for m in found)
        reason = (f"{len(found)} roster entries are named '{h.name}' ({who}) and the download holds no id that "
                  "tells them apart: whose is it? Not guessed")
        if h.by_name:
            skipped += [Skipped(str(p), reason, "") for p, _ in h.files]
            return []
        notes.append(f"{h.student_id}: {reason}; filed under the {h.lms} id, without the roster's identifiers")
        return [h]
    return _take(h, found, notes, f"the name '{h.name}'")


def _by_id(h: HandIn, roster: Roster) -> list[Member] | None:
    """Roster entries with the hand-in's own id ([] when none has it), or None when the download carries no id a
    roster lists (then the name decides). Brightspace's download ids may be internal ones: None when unmatched."""
    if h.lms == "D2L Brightspace":  # the download's id may be internal: an OrgDefinedId with another name is no match
        same = [m for m in roster.find("org_defined_id", h.lms_id) if m in roster.by_name(h.name)]
        return same or None
    tried = False
    for kind in ("sid", "email", "username"):
        if h.ids.get(kind):
            tried = True
            found = roster.find(kind, h.ids[kind])
            if found:
                return found
    return [] if tried else None


def _take(h: HandIn, found: list[Member], notes: list[str], by: str) -> list[HandIn]:
    if not found:
        notes.append(f"{h.student_id} ({h.name or h.lms_id}): no roster entry has {by}: filed without the roster's "
                     "identifiers; the export names it")
        return [h]
    if len(found) > 1:
        notes.append(f"{h.student_id}: {len(found)} roster entries have {by}: not joined")
        return [h]
    m = found[0]
    h.ids = {**h.ids, **m.ids}
    h.name = m.name if h.lms == "Canvas" or not h.name else h.name  # Canvas's file name holds a squeezed name
    h.email = h.email or m.ids.get("email", "")
    if h.by_name or h.lms == "Moodle":  # no id of its own (or one per assignment): the roster's is the person
        kind = next((k for k in STABLE if m.ids.get(k)), None)
        if kind:
            prefix = "classroom" if h.by_name else "moodle"
            h.key, h.student_id, h.by_name = f"{kind}:{m.ids[kind]}", student_id(prefix, m.ids[kind]), False
    return [h]


def _canvas(h: HandIn, roster: Roster, notes: list[str]) -> list[HandIn]:
    found = roster.find("canvas_user_id", h.lms_id)
    if len(found) != 1:
        return _take(h, found, notes, f"Canvas user id {h.lms_id}")
    rep = found[0]
    if rep in roster.by_name(h.name) or not h.name:
        return _take(h, found, notes, f"Canvas user id {h.lms_id}")
    # the name on the file is not this user's: Canvas named a group's hand-in after the group
    members = [m for m in roster.members if any(squeeze(g) == h.name for g in m.groups)]
    group = next((g for m in members for g in m.groups if squeeze(g) == h.name), h.name)
    if not members:
        h.group = h.name
        notes.append(f"group hand-in '{h.name}'? The file's name is not the roster's name for Canvas user {h.lms_id} "
                     f"({rep.name}), as when Canvas names a group's file after the group with one member's id. The "
                     f"roster names no members of a group '{h.name}', so it is filed for {rep.name} only and the "
                     "group's other members got nothing: give a roster with a Groups column to file it for each")
        h.name = rep.name
        return _take(h, found, [], "")
    notes.append(f"group hand-in '{group}' (handed in under {rep.name}'s user id {h.lms_id}) filed for every member "
                 f"the roster names: {', '.join(m.name for m in members)}")
    copies = []
    for m in members:
        uid = m.ids.get("canvas_user_id", "")
        ident = uid or safe_id(m.name)
        copies.append(dataclasses.replace(
            h, key=ident, name=m.name, lms_id=uid, student_id=student_id("canvas", ident), group=group,
            ids={**m.ids}, email=m.ids.get("email", ""), files=list(h.files), notes=[]))
    return copies


def without_hand_in(roster: Roster, hand_ins: list[HandIn], undecided: list[Member] = ()) -> list[Skipped]:
    """A report row for every roster student no hand-in of this download belongs to (or may belong to: a name
    two roster entries share)."""
    have = [set(h.ids.items()) for h in hand_ins]
    rows = []
    for m in roster.members:
        if m in undecided:
            rows.append(Skipped("", f"in the roster ({_ids(m)}); a hand-in under this name may be theirs, but another "
                                "roster entry has the same name: not joined (see the report and console)", m.name))
        elif m.ids and not any(set(m.ids.items()) <= ids for ids in have):
            rows.append(Skipped("", f"in the roster ({_ids(m)}), no hand-in in this download", m.name))
    return rows


def _ids(m: Member) -> str:
    return ", ".join(f"{k} {v}" for k, v in m.ids.items()) or "no id"
