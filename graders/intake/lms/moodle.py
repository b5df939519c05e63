"""Moodle "Download all submissions" (assign module): a zip named after the course and assignment.

The rules (``lms-formats.md``, Moodle, from moodle ``mod/assign/locallib.php download_submissions``):

- Prefix per student: ``[<group name>-]<Full Name>_<participant id>`` (``_`` in names turned into spaces,
  ``clean_filename`` applied: accents stay); ``Default group-`` for a student in no group of a group assignment;
  blind marking writes ``Participant`` for the name.
- In folders (the default since 3.1): ``<prefix>_assignsubmission_file_/<file>``; flat:
  ``<prefix>_assignsubmission_file_<file>``; typed-in text: ``<prefix>_assignsubmission_onlinetext_/...``.
- The participant id is the key (two students with one name differ only by it). It is Moodle's id for the person
  in THIS assignment: another Moodle assignment gives the same person another participant id.
- The time is the stored file's time in the zip (local time, no zone): ``file_times``.

The student id is ``moodle_<participant id>``; the group prefix goes to ``group``, never into the key.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from traitlets import Unicode

from graders.intake.lms import HandIn, NamedCollector, Skipped, display, is_system, parsed_files, student_id

NAME = "Moodle"
LOOKS_FOR = ("Moodle: folders <Full Name>_<id>_assignsubmission_file_/<file>, or flat "
             "<Full Name>_<id>_assignsubmission_file_<file>")
# lms-formats.md, Moodle: "<prefix>_assignsubmission_file_/<sub-folders>/<file>" with the prefix
# "<group name>-<full name>_<participant id>" (underscores in names replaced by spaces)
PATTERN = r"^(?P<student_id>[^_/]+)_(?P<lms_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file_id>.*)$"
DEFAULT_GROUP = "Default group-"  # lms-formats.md, Moodle: "Default group- for a student in no group"
BLIND = "Participant"             # lms-formats.md, Moodle: "Blind marking: Participant_<participant id>"
TIME_SOURCE = "Moodle file time"


class MoodleCollector(NamedCollector):
    """Moodle's flat names for nbgrader (``zip_collect --collector=graders.intake.lms.moodle.MoodleCollector``);
    files each student under ``moodle_<participant id>``, as ``collect`` does."""
    named_regexp = Unicode(PATTERN).tag(config=True)

    def collect(self, submitted_file: str) -> dict | None:
        info = super().collect(submitted_file)
        groups = self.parse(submitted_file)
        if info and groups:
            info["student_id"] = student_id("moodle", groups["lms_id"])
        return info


def parse(name: str) -> dict | None:
    match = re.match(PATTERN, unicodedata.normalize("NFC", name))
    return match.groupdict() if match else None


def group_download(prefixes: dict[str, str]) -> bool:
    """Whether the prefixes (participant id -> name part) carry ``<group>-``: a ``Default group-`` prefix, or
    every prefix has a ``-`` and one part before it is shared by two people (Moodle gives each member of a group
    the group's files under their own prefix)."""
    if any(p.startswith(DEFAULT_GROUP) for p in prefixes.values()):
        return True
    if not prefixes or not all("-" in p for p in prefixes.values()):
        return False
    heads = [p.split("-", 1)[0] for p in prefixes.values()]
    return len(set(heads)) < len(heads)


def split_group(prefix: str, grouped: bool) -> tuple[str, str]:
    """``('Team A', 'Ada Lovelace')`` from ``'Team A-Ada Lovelace'`` in a group download (a group name with a
    ``-`` in it is cut at its first ``-``: only the display suffers, the key is the participant id)."""
    if prefix.startswith(DEFAULT_GROUP):
        return "", prefix[len(DEFAULT_GROUP):]
    if grouped and "-" in prefix:
        group, name = prefix.split("-", 1)
        return group, name
    return "", prefix


def fits(root: Path) -> bool:
    top = [p for p in root.iterdir() if not is_system(Path(p.name))]
    named = [p for p in top if parse(p.name)]
    return bool(named) and 2 * len(named) > len(top)


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    if not fits(root):
        return None
    parsed, skipped = parsed_files(root, parse, "Moodle's <Full Name>_<id>_assignsubmission_file_")
    grouped = group_download({info["lms_id"]: info["student_id"] for _, _, info in parsed})
    hand_ins: dict[str, HandIn] = {}
    for path, first, info in parsed:
        pid = info["lms_id"]
        group, name = split_group(info["student_id"], grouped)
        sid = student_id("moodle", pid)
        if info["plugin"] != "file":
            skipped.append(Skipped(str(path), f"Moodle's {info['plugin']} part (typed into Moodle), "
                                   "not an uploaded file", student=sid))
            continue
        blind = name.strip() == BLIND
        hand_in = hand_ins.setdefault(pid, HandIn(
            NAME, key=pid, name="" if blind else display(name), lms_id=pid, student_id=sid, group=group,
            time_source=TIME_SOURCE, file_times=True,
            notes=["blind marking: no name in the download, filed under the participant id"] if blind else []))
        hand_in.files.append((path, path.name if path.name != first else info["file_id"]))
    return list(hand_ins.values()), skipped
