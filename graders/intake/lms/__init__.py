"""Readers of LMS downloads: each turns one layout into hand-ins (who, when, which files).

A reader module has ``NAME`` (the LMS), ``LOOKS_FOR`` (the names it recognises, for messages) and
``read(root, names) -> (hand_ins, skipped) | None``: ``None`` unless ``root`` follows that LMS's whole rule
(``/work/shared/reference/lms-formats.md``, summarised in docs/collecting.md). Readers only say whose files
are whose and when the LMS says they were handed in; matching a file to a released notebook is
``graders.intake.student_files``'s job.

A student is keyed by the identifier the LMS gives (``HandIn.key``), never by a name; the nbgrader student id
is that identifier made a safe folder name with the LMS in front (:func:`student_id`): ``canvas_340934``.
"""

from __future__ import annotations

import datetime
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.plugins import FileNameCollectorPlugin

from graders.intake.student_files import normalise_name

#: files that operating systems and browsers add; listed in the report as ignored, never filed
SYSTEM_FILES = {".DS_Store", "Thumbs.db", "desktop.ini", ".localized"}
SYSTEM_DIRS = {"__MACOSX", ".ipynb_checkpoints", ".git", "__pycache__"}


class NamedCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector for an LMS's names; subclasses set ``named_regexp``.

    Works on its own too: ``nbgrader zip_collect A --collector=graders.intake.lms.canvas.CanvasCollector``
    files each match under the released name (Colab's and browsers' renames undone).
    """

    def parse(self, filename: str) -> dict | None:
        """The named groups for one file name (its directory dropped), or None; logs nothing."""
        match = re.match(self.named_regexp, os.path.basename(filename))
        return match.groupdict() if match else None

    def parsed_files(self, root: Path, pattern: str) -> tuple[list[tuple[Path, str, dict]], list[Skipped]]:
        return parsed_files(root, self.parse, pattern)

    def collect(self, submitted_file: str) -> dict | None:
        info = super().collect(os.path.basename(submitted_file))  # zip_collect passes whole paths
        if info:
            info["file_id"] = normalise_name(info["file_id"]) + ".ipynb"
        return info


@dataclass
class HandIn:
    """What one student handed in, as the LMS names it."""
    lms: str
    key: str                        # what identifies the person in this LMS (its id; a name only for Classroom)
    name: str = ""                  # as the LMS shows it (Unicode kept)
    lms_id: str = ""                # the LMS's id for the person (Canvas user id, Moodle participant id, SID)
    email: str = ""
    submission_id: str = ""
    submitted_at: float | None = None   # epoch seconds, when the LMS records a time for the whole hand-in
    late: bool | None = None            # only when the LMS marks it
    files: list[tuple[Path, str]] = field(default_factory=list)  # (path, the name the student gave it)
    student_id: str = ""            # nbgrader's id: set by the reader from the LMS id, made unique by collect
    time_source: str = ""           # where submitted_at comes from ("Blackboard attempt stamp", "Canvas LATE flag")
    file_times: bool = False        # the LMS records no time of its own: each file's time is the time (Moodle)
    order: tuple = ()               # the LMS's own order among equal times (Canvas attachment id)
    group: str = ""                 # the group whose hand-in this is
    ids: dict[str, str] = field(default_factory=dict)  # roster identifier kinds the download (or roster) gives
    by_name: bool = False           # no id in the download: keyed by the name, the roster decides (Classroom)
    notes: list[str] = field(default_factory=list)     # said in the console (group hand-ins, roster joins)


@dataclass
class Skipped:
    """A file that is not filed, and why."""
    file: str
    reason: str
    student: str = ""


def is_system(path: Path) -> bool:
    return path.name in SYSTEM_FILES or path.name.startswith("._") or bool(SYSTEM_DIRS & set(path.parts))


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).rglob("*") if p.is_file() and not p.is_symlink())


def split_system(root: Path, paths: list[Path]) -> tuple[list[Path], list[Skipped]]:
    """Keep the student's files; list what the OS added (``__MACOSX``, ``.DS_Store``) as ignored."""
    keep, skipped = [], []
    for p in paths:
        if is_system(p.relative_to(root)):
            skipped.append(Skipped(str(p), "ignored: a file the operating system adds, not a hand-in"))
        else:
            keep.append(p)
    return keep, skipped


def parsed_files(root: Path, parse, pattern: str) -> tuple[list[tuple[Path, str, dict]], list[Skipped]]:
    """``(path, its top-level name, parse(that name))`` of every file under ``root`` whose top-level entry (the
    file itself, or a folder an instructor unzipped into) ``parse`` reads; every other file is reported as not
    following ``pattern``, and system files as system files."""
    paths, skipped = split_system(root, files_under(root))
    parsed = []
    for path in paths:
        first = Path(rel(root, path)).parts[0]
        info = parse(first)
        if info is None:
            skipped.append(Skipped(str(path), f"the name does not follow {pattern}: whose is it?"))
        else:
            parsed.append((path, first, info))
    return parsed, skipped


def rel(root: Path, path: Path) -> str:
    return str(Path(path).relative_to(root))


def slug(name: str) -> str:
    """``'Ada Lovelace'`` -> ``'ada_lovelace'``: an ASCII folder name (per-student folders' old ids only)."""
    text = re.sub(r"[^\w.@-]+", "_", name.strip(), flags=re.ASCII).strip("_.").lower()
    return text or "unknown"


def safe_id(text: str) -> str:
    """A folder name nbgrader accepts, Unicode letters kept: ``'José Müller'`` -> ``'José_Müller'``,
    ``'bob@example.edu'`` stays. Separators, slashes and control characters become ``_``; case is kept (Canvas's
    anonymous ids are case-sensitive; ``collect`` keeps ids apart that differ only by case)."""
    text = unicodedata.normalize("NFC", str(text)).strip()
    return re.sub(r"[^\w.@-]+", "_", text).strip("_.")


def student_id(lms: str, value: str) -> str:
    """nbgrader's student id for the LMS identifier ``value``: ``student_id('canvas', '340934')`` is
    ``canvas_340934``. The LMS in front keeps ids of two LMSs apart and says where the id comes from."""
    return f"{lms}_{safe_id(value)}"


def display(name: str) -> str:
    """A name as a person reads it: NFC (a Mac's zip writes NFD), spaces collapsed; accents and scripts kept."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", name)).strip()


def name_key(name: str) -> str:
    """What makes two written names the same name: NFC, casefold, spaces collapsed; never accents stripped."""
    return display(name).casefold()


def local_epoch(when: datetime.datetime) -> float:
    """A naive time the LMS wrote without a zone (zip entries, Blackboard and Brightspace stamps), read as
    this machine's local time: the zone the instructor downloaded in (docs/collecting.md says so)."""
    return when.timestamp()


def epoch(value) -> float | None:
    """A time from metadata (datetime or ISO text, with or without zone) as epoch seconds."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    import dateutil.parser  # nbgrader's own dependency, as nbgrader parses times with it
    try:
        return dateutil.parser.parse(str(value)).timestamp()
    except (ValueError, OverflowError):
        return None
