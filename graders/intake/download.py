"""The download: a zip unpacked (with limits), then the layout of each LMS found in it.

A layout is taken only when its LMS's whole rule fits (each reader's ``fits``); the readers are tried from the
most specific names to the least (Blackboard's ``_attempt_<stamp>`` before Canvas's ``_<id>_<id>_``, Brightspace's
dated folders before per-student folders). A folder no reader takes is refused: every file in it is listed.
"""

from __future__ import annotations

import datetime
import os
import zipfile
from pathlib import Path, PurePosixPath

from graders.intake.lms import (
    HandIn,
    Skipped,
    blackboard,
    brightspace,
    canvas,
    classroom,
    files_under,
    folders,
    gradescope,
    is_system,
    moodle,
)
from graders.limits import Limits

# tried in this order at each level; folders last (it takes any folder of folders)
READERS = [gradescope, blackboard, brightspace, moodle, canvas, classroom]
UNKNOWN = "no LMS layout recognised in this download, so nothing in it was filed"


class Sources:
    """What a person recognises for a file: ``submissions.zip:smithbob_..._01_devices.ipynb``."""

    def __init__(self, download: Path):
        self.bases = [(download if download.is_dir() else download.parent, "")]

    def add(self, base: Path, prefix: str) -> None:
        self.bases.insert(0, (base, prefix))

    def label(self, path: Path) -> str:
        for base, prefix in self.bases:
            if Path(path).is_relative_to(base):
                inside = str(Path(path).relative_to(base))
                return prefix + ("" if inside == "." else inside)
        return str(path)


def extract(archive: Path, dest: Path, label: str, skipped: list[Skipped], limits: Limits) -> bool:
    """Unpack an LMS zip safely: no paths outside ``dest``, no file over the size limit, times kept."""
    cap = int(limits.max_file_mib * 2**20)
    try:
        with zipfile.ZipFile(archive) as zf:
            for member in zf.infolist():
                parts = PurePosixPath(_name(member).replace("\\", "/")).parts
                if member.is_dir() or not parts:
                    continue
                where = f"{label}:{_name(member)}"
                if _name(member).startswith("/") or ".." in parts:
                    skipped.append(Skipped(where, "ignored: a path outside the zip's folder"))
                    continue
                if member.file_size > cap:
                    skipped.append(Skipped(where, f"over the {limits.max_file_mib:g} MiB limit for one file"))
                    continue
                target = dest.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(member) as src, open(target, "wb") as out:
                    out.write(src.read(cap + 1)[:cap])
                when = datetime.datetime(*member.date_time).timestamp()  # a zip stores local time, no zone
                os.utime(target, (when, when))
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, ValueError) as error:
        skipped.append(Skipped(label, f"could not unpack it as a zip ({type(error).__name__}: {str(error)[:80]})"))
        return False
    return True


def _name(member: zipfile.ZipInfo) -> str:
    """The entry's name as its LMS wrote it. Python reads a name without the zip's UTF-8 flag as cp437; zip
    writers that store UTF-8 without the flag are common, so such a name is decoded as UTF-8 when it is valid
    UTF-8 (``müllerjosé``, ``王小明``), else kept as cp437."""
    if member.flag_bits & 0x800:
        return member.filename
    try:
        return member.filename.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return member.filename


def _entries(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.iterdir()) if not is_system(Path(p.name))]


def chain(root: Path) -> list[Path]:
    """``root`` and the folders below it while each holds a single folder (a zip's wrapper folder)."""
    found = [root]
    while True:
        entries = _entries(found[-1])
        if len(entries) != 1 or not entries[0].is_dir() or (found[-1] / gradescope.METADATA).exists() \
                or brightspace.parse(entries[0].name) or moodle.parse(entries[0].name):
            return found
        found.append(entries[0])


def _lms_named(path: Path) -> bool:
    """A zip named like one student's hand-in in some LMS (not a download of its own)."""
    return any(reader.parse(path.name) for reader in (canvas, moodle, blackboard, brightspace))


Found = tuple[str, list[HandIn], list[Skipped]]


def find_layouts(path: Path, names: list[str], tmp: Path, sources: Sources, skipped: list[Skipped],
                 limits: Limits, depth: int = 0) -> list[Found]:
    """Every layout in the download: (its name, its hand-ins, the files it does not file)."""
    if path.is_file():
        dest = tmp / f"download{len(sources.bases)}"
        if not extract(path, dest, sources.label(path), skipped, limits):
            return []
        sources.add(dest, sources.label(path) + ":")
        path = dest
    levels = chain(path)
    entries = _entries(levels[-1])
    zips = [p for p in entries if p.is_file() and p.suffix.lower() == ".zip" and not _lms_named(p)]
    if zips and len(zips) == len(entries) and depth < 2:  # a folder of downloads (say, one per notebook)
        return [found for z in zips for found in find_layouts(z, names, tmp, sources, skipped, limits, depth + 1)]
    for level in levels:
        for reader in READERS:
            found = reader.read(level, names)
            if found is not None:
                return [(f"{reader.NAME} ({sources.label(level).rstrip(':') or level.name})", *found)]
    for level in reversed(levels):  # the deepest level whose folders are students (not one level up)
        found = folders.read(level, names)
        if found is not None and not all(h.student_id in names or h.key in names for h in found[0]):
            return [(f"per-student folders ({sources.label(level).rstrip(':') or level.name})", *found)]
    listed = [p for p in files_under(path)]
    skipped += [Skipped(str(p), f"{UNKNOWN} (looked for: {looks_for()})") for p in listed]
    if not listed:
        skipped.append(Skipped(sources.label(path) or str(path), "the download holds no file: nothing to collect"))
    return []


def looks_for() -> str:
    return "; ".join(r.LOOKS_FOR for r in READERS + [folders])


def detect(path: Path, names: list[str]) -> str | None:
    """The LMS a download comes from, when it is not per-student folders (for autograde's refusal)."""
    path = Path(path)
    if path.is_file():
        return "zip" if zipfile.is_zipfile(path) else None
    for level in chain(path):
        for reader in READERS:
            if reader.read(level, names) is not None:
                return reader.NAME
    return None
