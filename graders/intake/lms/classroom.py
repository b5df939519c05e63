"""Google Classroom: the assignment's Drive folder, downloaded from Drive as a zip.

Drive zips the folder as ``<folder>-<date>T<time>Z-001.zip`` holding the files as they are in the
folder. Copies Classroom makes for each student ("Make a copy for each student") are named
``<Student Name> - <file name>``; files students upload keep their own names, with nothing that says
whose they are (lms-formats.md, Google Classroom: "No stable id is in the download").

So the roster decides (``collect --roster``, ``graders.intake.join``): the name finds the roster entry, and two
roster entries with that name are reported, never guessed. Without a roster the hand-in is keyed by the name as
written (NFC, case folded, accents and scripts kept: ``José`` and ``Jose`` stay two people) and the student id
is ``classroom_<name>``; one name with two files for one notebook is then reported, not merged. A file without
a name is reported. The time is the file's time in Drive's zip.
"""

from __future__ import annotations

import re
from pathlib import Path

from graders.intake.lms import HandIn, Skipped, display, files_under, name_key, safe_id, split_system
from graders.intake.student_files import name_matches

NAME = "Google Classroom"
LOOKS_FOR = "Google Classroom: '<Student Name> - <notebook>.ipynb' (the Drive folder or its zip)"
TIME_SOURCE = "file time"
# lms-formats.md, Google Classroom: copies are named "<Student Name> - <title>" (*unverified* exact form)
PATTERN = re.compile(r"^(?P<name>.+?) - (?P<file>.+)$")


def _owner(filename: str, names: list[str]) -> tuple[str, str] | None:
    """``('Ada Lovelace', '01_devices.ipynb')``, or None when no student's name leads the file name."""
    match = PATTERN.match(display(filename))
    if not match or any(name_matches(match["name"], n) for n in names):  # "01_devices - Copy.ipynb"
        return None
    return match["name"], match["file"]


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    if not any(_owner(p.name, names) for p in root.iterdir() if p.is_file()):
        return None
    paths, skipped = split_system(root, files_under(root))
    hand_ins: dict[str, HandIn] = {}
    for path in paths:
        owner = _owner(path.name, names)
        if owner is None:
            skipped.append(Skipped(str(path), "no student's name in the file name (Classroom adds "
                                   "'<Name> - ' only to the copies it makes): put it in a folder named by the "
                                   "student and collect that folder"))
            continue
        name, given = owner
        hand_ins.setdefault(name_key(name), HandIn(
            NAME, key=name_key(name), name=name, student_id=f"classroom_{safe_id(name_key(name))}",
            by_name=True, file_times=True, time_source=TIME_SOURCE)).files.append((path, given))
    return list(hand_ins.values()), skipped
