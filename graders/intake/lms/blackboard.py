"""Blackboard Learn (Original): Grade Center "Assignment File Download".

The rules (``lms-formats.md``, Blackboard Learn):

- Zip ``gradebook_<course id>_<column>_<YYYY-MM-DD-HH-MM-SS>.zip``, flat.
- Files ``<Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<original name>``; one receipt per attempt,
  ``<Assignment>_<username>_attempt_<stamp>.txt`` (``Name: First Last (username)``, ``Date Submitted: …``).
- The username is the last ``_`` field before ``_attempt_``; the assignment part may hold ``_`` and digits.
- "All attempts" gives one file set per attempt, each with its stamp: the stamp is the submission time.

The username is the key (student id ``blackboard_<username>``). Each attempt is its own hand-in, timed by its
stamp (read as local time: Blackboard writes no zone); the newest attempt is filed, older ones are reported.
Receipts are read for the display name and reported as read.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from pathlib import Path

from graders.intake.lms import (
    HandIn,
    Skipped,
    display,
    files_under,
    is_system,
    local_epoch,
    rel,
    split_system,
    student_id,
)

NAME = "Blackboard Learn"
LOOKS_FOR = "Blackboard Learn: flat <Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file> (+ receipts .txt)"
# lms-formats.md, Blackboard: "Files <Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<original name>, plus
# one receipt per attempt <Assignment>_<username>_attempt_<stamp>.txt"; "Parsers split on _attempt_ and take the
# last _ field before it as the username"
PATTERN = re.compile(r"^(?P<assignment>.+)_(?P<username>[^_]+)_attempt_"
                     r"(?P<stamp>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?:_(?P<file>.+)|(?P<receipt>\.txt))$")
TIME_SOURCE = "Blackboard attempt stamp"
# the receipt's first line, in any language: "<label>: First Last (username)"
RECEIPT_NAME = re.compile(r"^[^:\n]{1,40}:\s*(?P<name>.+?)\s*\((?P<username>[^()\s]+)\)\s*$", re.M)


def parse(name: str) -> dict | None:
    match = PATTERN.match(unicodedata.normalize("NFC", name))
    return match.groupdict() if match else None


def stamp_epoch(stamp: str) -> float:
    return local_epoch(datetime.datetime.strptime(stamp, "%Y-%m-%d-%H-%M-%S"))


def receipt_name(path: Path, username: str) -> str:
    """The display name from a receipt's ``Name: First Last (username)`` line ('' if it is not there)."""
    text = path.read_bytes()[:20000].decode("utf-8", errors="replace")
    for match in RECEIPT_NAME.finditer(text):
        if match["username"].casefold() == username.casefold():
            return display(match["name"])
    return ""


def receipt_date(path: Path) -> datetime.datetime | None:
    """The receipt's ``Date Submitted: …`` as a naive time, when it is English enough for dateutil; else None
    (the labels are localised: the stamp stays the time, this only cross-checks it)."""
    import warnings

    import dateutil.parser
    text = path.read_bytes()[:20000].decode("utf-8", errors="replace")
    match = re.search(r"^Date Submitted:\s*(.+?)\s*$", text, re.M)
    if not match:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a zone abbreviation dateutil does not know (CET): the wall time is kept
        try:
            return dateutil.parser.parse(match[1], fuzzy=True, ignoretz=True)
        except (ValueError, OverflowError):
            return None


def fits(root: Path) -> bool:
    """Blackboard's whole rule: flat (no folders but the OS's), most entries named by the rule."""
    top = [p for p in root.iterdir() if not is_system(Path(p.name))]
    named = [p for p in top if p.is_file() and parse(p.name)]
    return bool(named) and 2 * len(named) > len(top) and not any(p.is_dir() for p in top)


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    if not fits(root):
        return None
    paths, skipped = split_system(root, files_under(root))
    attempts: dict[tuple[str, str], HandIn] = {}
    receipts: list[tuple[Path, dict]] = []
    for path in paths:
        info = parse(rel(root, path))
        if info is None:
            skipped.append(Skipped(str(path), "the name does not follow Blackboard's "
                                   "<Assignment>_<username>_attempt_<stamp>_<file>: whose is it?"))
            continue
        user = info["username"]
        hand_in = attempts.setdefault((user.casefold(), info["stamp"]), HandIn(
            NAME, key=user.casefold(), lms_id=user, student_id=student_id("blackboard", user.casefold()),
            submission_id=f"attempt_{info['stamp']}", submitted_at=stamp_epoch(info["stamp"]),
            time_source=TIME_SOURCE, ids={"username": user}))
        if info["receipt"]:
            receipts.append((path, info))
            continue
        hand_in.files.append((path, info["file"]))
    for path, info in receipts:
        hand_in = attempts[(info["username"].casefold(), info["stamp"])]
        hand_in.name = receipt_name(path, info["username"]) or hand_in.name
        said = receipt_date(path)
        stamp = datetime.datetime.strptime(info["stamp"], "%Y-%m-%d-%H-%M-%S")
        if said is not None and abs((said - stamp).total_seconds()) > 60:
            hand_in.notes.append(f"{hand_in.student_id}: the receipt says Date Submitted {said:%Y-%m-%d %H:%M:%S}, "
                                 f"the file name's stamp {info['stamp']}: the stamp is used")
        skipped.append(Skipped(str(path), f"Blackboard's receipt of the attempt of {info['stamp']}: read for the "
                               "name, not a hand-in", hand_in.student_id))
    names_by_user = {h.key: h.name for h in attempts.values() if h.name}
    for hand_in in attempts.values():
        hand_in.name = hand_in.name or names_by_user.get(hand_in.key, "")
    return [h for h in attempts.values() if h.files], skipped
