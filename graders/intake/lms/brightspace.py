"""D2L Brightspace: Assignments "Download".

The rules (``lms-formats.md``, D2L Brightspace):

- Current layout: one folder per submission ``<id>-<id> - <First Last> - <Mon D, YYYY HMM AM>/<file>`` plus
  ``index.html``. Older flat layout: ``<id>-<id> - <Name> - <date> - <file>`` plus ``index.html``.
- A resubmission is another folder or file with its own date: the newest is kept. The date is the submission time.

Which of the two ids is the person's is not stated in the reference (*unverified*). The person's id is the one
that stays the same across a person's resubmissions while the submission's changes, so it is read from the
download itself: of the two positions, the one whose values each belong to a single name and that repeats
(resubmissions) is the person's. When nothing in the download decides (no resubmissions), the second id is
taken, and the console says so. The pair is kept as ``submission_id``. The date is read as local time (the
name carries no zone); English month names.
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
    name_key,
    rel,
    split_system,
    student_id,
)

NAME = "D2L Brightspace"
LOOKS_FOR = ("D2L Brightspace: folders '<id>-<id> - <Name> - <Mon D, YYYY HMM AM>/<file>' or flat "
             "'<id>-<id> - <Name> - <date> - <file>', with index.html")
# lms-formats.md, Brightspace: "<id>-<id> - <First Last> - <Mon D, YYYY HMM AM>/<file>"
DATE = r"(?P<date>[A-Z][a-z]{2} \d{1,2}, \d{4} \d{3,4} [AP]M)"
FOLDER = re.compile(rf"^(?P<a>\d+)-(?P<b>\d+) - (?P<name>.+?) - {DATE}$")
# lms-formats.md, Brightspace: "Older flat layout: <id>-<id> - <Name> - <date> - <file>"
FLAT = re.compile(rf"^(?P<a>\d+)-(?P<b>\d+) - (?P<name>.+?) - {DATE} - (?P<file>.+)$")
INDEX = "index.html"
TIME_SOURCE = "Brightspace folder date"


def parse(name: str) -> dict | None:
    name = unicodedata.normalize("NFC", name)
    match = FOLDER.match(name) or FLAT.match(name)
    return {"file": None, **match.groupdict()} if match else None


def date_epoch(text: str) -> float:
    """``'Jan 5, 2026 233 PM'`` (Brightspace writes the time without a colon) as epoch seconds, local time."""
    day, clock, half = text.rsplit(" ", 2)
    clock = clock.zfill(4)
    return local_epoch(datetime.datetime.strptime(f"{day} {clock[:2]}:{clock[2:]} {half}", "%b %d, %Y %I:%M %p"))


def fits(root: Path) -> bool:
    top = [p for p in root.iterdir() if not is_system(Path(p.name)) and p.name != INDEX]
    named = [p for p in top if (FOLDER.match(p.name) and p.is_dir()) or (FLAT.match(p.name) and p.is_file())]
    return bool(named) and 2 * len(named) > len(top)


def person_position(entries: list[dict]) -> tuple[str, bool]:
    """``('a'|'b', decided)``: which id is the person's (see the module's docstring)."""
    fitting = []
    for pos in ("a", "b"):
        names: dict[str, set] = {}
        for e in entries:
            names.setdefault(e[pos], set()).add(name_key(e["name"]))
        if all(len(v) == 1 for v in names.values()):
            fitting.append((len(names), pos))
    if len(fitting) == 1:
        return fitting[0][1], True
    if len(fitting) == 2 and fitting[0][0] != fitting[1][0]:
        return min(fitting)[1], True  # fewer distinct values: that one repeats across resubmissions
    return "b", False


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    if not fits(root):
        return None
    paths, skipped = split_system(root, files_under(root))
    found: list[tuple[Path, str, dict]] = []
    for path in paths:
        first = Path(rel(root, path)).parts[0]
        info = parse(first)
        if first == INDEX and path.parent == root:
            skipped.append(Skipped(str(path), "Brightspace's index of the download: not a hand-in"))
        elif info is None or (info["file"] is None) == (path.parent == root):
            skipped.append(Skipped(str(path), "the name does not follow Brightspace's "
                                   "'<id>-<id> - <Name> - <date>/<file>': whose is it?"))
        else:
            found.append((path, first, info))
    pos, decided = person_position([info for _, _, info in found])
    hand_ins: dict[tuple[str, str], HandIn] = {}
    for path, _first, info in found:
        person = info[pos]
        hand_in = hand_ins.setdefault((person, info["date"]), HandIn(
            NAME, key=person, name=display(info["name"]), lms_id=person, student_id=student_id("brightspace", person),
            submission_id=f"{info['a']}-{info['b']}", submitted_at=date_epoch(info["date"]),
            time_source=TIME_SOURCE,
            notes=[] if decided else [f"which of Brightspace's two ids is the person's: no resubmission in this "
                                      f"download decides it; took the second ({info['a']}-{info['b']} -> {person})"]))
        hand_in.files.append((path, info["file"] or path.name))
    return list(hand_ins.values()), skipped
