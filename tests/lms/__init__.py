"""LMS downloads built the way each LMS builds them, for ``tests/test_collect.py``.

Each builder writes one download (a folder, or the zip an instructor gets) and returns a
:class:`Download`: where it is, the submitted/ entries it must give (with the bytes each must hold),
the files that must appear in the report, and what the manifest must say. File names follow the
LMS's own patterns (see docs/collecting.md for the sources).
"""

from __future__ import annotations

import datetime
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples" / "submissions"
NB = "01_devices"
T0 = datetime.datetime(2026, 1, 5, 14, 0, 0)  # a zip stores local time; tests compare local times


def correct() -> bytes:
    return (SAMPLES / "correct" / f"{NB}.ipynb").read_bytes()


def untouched() -> bytes:
    return (SAMPLES / "untouched" / f"{NB}.ipynb").read_bytes()


def mistakes() -> bytes:
    return (SAMPLES / "mistakes" / f"{NB}.ipynb").read_bytes()


def made_now(answers: bool) -> bytes:
    """A correct (or untouched) student copy made from today's solutions, as ``graders samples`` makes
    ``samples/submissions``: for grading, where a sample older than an edited notebook would be wrong."""
    import nbformat

    from graders.authoring.samples import reference_answers, submission
    return nbformat.writes(submission(NB, reference_answers(NB) if answers else None)).encode()


def stranger() -> bytes:
    """A notebook that is none of the course's (a student's scratch work)."""
    nb = {"cells": [{"cell_type": "code", "id": "a1", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": "print('my own experiment')"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb).encode()


@dataclass
class Download:
    path: Path
    expected: dict[tuple[str, str], bytes]            # (student_id, notebook) -> the bytes filed
    reported: list[str] = field(default_factory=list)  # a part of each file name the report must list
    manifest: dict[tuple[str, str], dict] = field(default_factory=dict)  # columns the manifest must hold


def write(files: dict[str, tuple[bytes, datetime.datetime]], dest: Path, zipped: str | None) -> Path:
    """Lay ``files`` (name -> (bytes, time)) out as a folder, or as the zip ``zipped`` in ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    if zipped:
        path = dest / zipped
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, (data, when) in files.items():
                zf.writestr(zipfile.ZipInfo(name, when.timetuple()[:6]), data)
        return path
    root = dest / "download"
    for name, (data, when) in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        os.utime(target, (when.timestamp(), when.timestamp()))
    return root


def minutes(n: int) -> datetime.datetime:
    return T0 + datetime.timedelta(minutes=n)


def canvas(dest: Path, zipped: bool) -> Download:
    """Canvas "Download Submissions" (submissions.zip): flat, <lastfirst>[_LATE]_<userid>_<fileid>_<name>."""
    files = {
        "smithbob_340934_208490284_01_devices.ipynb": (correct(), minutes(0)),
        "smithbob_340934_208490285_screenshot.png": (b"\x89PNG fake", minutes(0)),
        "lovelaceada_LATE_334244_394803489_Copy of 01_devices.ipynb": (untouched(), minutes(5)),  # Colab's name
        "lovelaceada_LATE_334244_394803490_scratch.ipynb": (stranger(), minutes(5)),
        "turingalan_330001_400000001_01_devices.ipynb": (untouched(), minutes(1)),
        "turingalan_330001_400000002_01_devices-1.ipynb": (mistakes(), minutes(9)),  # Canvas's re-upload name
        "notes from class.ipynb": (correct(), minutes(0)),  # not Canvas's pattern: whose?
        "__MACOSX/._smithbob_340934_208490284_01_devices.ipynb": (b"\x00", minutes(0)),
        ".DS_Store": (b"\x00", minutes(0)),
    }
    return Download(write(files, dest, "submissions.zip" if zipped else None),
                    {("smithbob", NB): correct(), ("lovelaceada", NB): untouched(), ("turingalan", NB): mistakes()},
                    ["screenshot.png", "scratch.ipynb", "400000001_01_devices.ipynb", "notes from class.ipynb",
                     "__MACOSX", ".DS_Store"],
                    {("smithbob", NB): {"lms": "Canvas", "lms_id": "340934", "late": "false"},
                     ("lovelaceada", NB): {"lms": "Canvas", "lms_id": "334244", "late": "true"},
                     ("turingalan", NB): {"lms_id": "330001", "submission_id": "400000002"}})


def moodle(dest: Path, zipped: bool, in_folders: bool = True) -> Download:
    """Moodle "Download all submissions": <Full Name>_<participant id>_assignsubmission_file_[/]<file>."""
    sep = "/" if in_folders else ""
    files = {
        f"Ada Lovelace_1001_assignsubmission_file_{sep}01_devices.ipynb": (correct(), minutes(0)),
        f"Bob Smith_1002_assignsubmission_file_{sep}Copy of 01_devices (1).ipynb": (untouched(), minutes(3)),
        f"Bob Smith_1002_assignsubmission_file_{sep}data.csv": (b"a,b\n1,2\n", minutes(3)),
        f"Grace Hopper_1003_assignsubmission_file_{sep}Untitled3.ipynb": (correct(), minutes(4)),  # by content
        f"Grace Hopper_1003_assignsubmission_onlinetext_{sep}onlinetext.html": (b"<p>see file</p>", minutes(4)),
    }
    return Download(write(files, dest, "GPU101-Module 7 01_devices-4242.zip" if zipped else None),
                    {("ada_lovelace", NB): correct(), ("bob_smith", NB): untouched(),
                     ("grace_hopper", NB): correct()},
                    ["data.csv", "onlinetext.html"],
                    {("ada_lovelace", NB): {"lms": "Moodle", "lms_id": "1001", "name": "Ada Lovelace"},
                     ("grace_hopper", NB): {"lms_id": "1003"}})


def classroom(dest: Path, zipped: bool) -> Download:
    """Google Classroom: the assignment's Drive folder as Drive zips it (<folder>-<time>Z-001.zip)."""
    files = {
        "01_devices/Ada Lovelace - 01_devices.ipynb": (correct(), minutes(0)),  # "make a copy for each student"
        "01_devices/Bob Smith - Copy of 01_devices.ipynb": (untouched(), minutes(2)),
        "01_devices/01_devices (1).ipynb": (mistakes(), minutes(2)),  # an upload: nothing says whose
    }
    return Download(write(files, dest, "01_devices-20260105T140000Z-001.zip" if zipped else None),
                    {("ada_lovelace", NB): correct(), ("bob_smith", NB): untouched()},
                    ["01_devices (1).ipynb"],
                    {("ada_lovelace", NB): {"lms": "Google Classroom", "name": "Ada Lovelace", "lms_id": ""}})


GRADESCOPE_YAML = """\
submission_9001:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2026-01-05 14:00:00.123456000 +00:00
  :score: 0.0
  :status: processed
submission_9002:
  :submitters:
  - :name: Bob Smith
    :sid: ''
    :email: bob@example.edu
  :created_at: 2026-01-05 15:30:00.000000000 +01:00
submission_9003:
  :submitters:
  - :name: Pair One
    :sid: '2001'
    :email: one@example.edu
  - :name: Pair Two
    :sid: '2002'
    :email: two@example.edu
  :created_at: 2026-01-04 09:00:00.000000000 -08:00
"""


def gradescope(dest: Path, zipped: bool) -> Download:
    """Gradescope "Export Submissions": assignment_<id>_export/submission_<id>/ + submission_metadata.yml."""
    top = "assignment_4711_export/"
    files = {
        top + "submission_metadata.yml": (GRADESCOPE_YAML.encode(), minutes(30)),
        top + "submission_9001/01_devices.ipynb": (correct(), minutes(30)),
        top + "submission_9002/Copy of 01_devices.ipynb": (untouched(), minutes(30)),
        top + "submission_9002/notes.txt": (b"thanks", minutes(30)),
        top + "submission_9003/01_devices.ipynb": (mistakes(), minutes(30)),
        top + "submission_9999/01_devices.ipynb": (correct(), minutes(30)),  # no metadata: whose?
    }
    return Download(write(files, dest, "assignment_4711_export.zip" if zipped else None),
                    {("1815", NB): correct(), ("bob@example.edu", NB): untouched(), ("2001", NB): mistakes(),
                     ("2002", NB): mistakes()},
                    ["notes.txt", "submission_9999"],
                    {("1815", NB): {"lms": "Gradescope", "lms_id": "1815", "email": "ada@example.edu",
                                    "submission_id": "9001", "submitted_at": "2026-01-05T14:00:00+00:00"},
                     ("bob@example.edu", NB): {"submitted_at": "2026-01-05T14:30:00+00:00"}})


def folders(dest: Path, zipped: bool) -> Download:
    """Today's layout: SUBMISSIONS/<student_id>/<whatever the student handed in>."""
    homework = dest / "homework.zip"
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(homework, "w") as zf:
        zf.writestr("work/01_devices.ipynb", mistakes())
        zf.writestr("work/readme.md", b"hello")
    files = {
        "alice/01_devices.ipynb": (correct(), minutes(0)),
        "bob/01_devices.ipynb": (correct(), minutes(7)),
        "bob/01_devices (1).ipynb": (untouched(), minutes(7)),  # same time: the exact name wins, and says so
        "carol/homework.zip": (homework.read_bytes(), minutes(1)),
        "stray.ipynb": (correct(), minutes(0)),
    }
    homework.unlink()
    return Download(write(files, dest, "submissions.zip" if zipped else None),
                    {("alice", NB): correct(), ("bob", NB): correct(), ("carol", NB): mistakes()},
                    ["01_devices (1).ipynb", "readme.md", "stray.ipynb"])


def nbgrader_submitted(dest: Path, zipped: bool) -> Download:
    """nbgrader's own layout: submitted/<student_id>/<assignment>/<notebook>.ipynb + timestamp.txt."""
    files = {
        "submitted/alice/01_devices/01_devices.ipynb": (correct(), minutes(0)),
        "submitted/alice/01_devices/timestamp.txt": (b"2026-01-03 10:00:00.000000 UTC", minutes(0)),
        "submitted/bob/01_devices/01_devices.ipynb": (untouched(), minutes(0)),
    }
    return Download(write(files, dest, "old-course.zip" if zipped else None),
                    {("alice", NB): correct(), ("bob", NB): untouched()},
                    ["timestamp.txt"],
                    {("alice", NB): {"lms": "folders", "submitted_at": "2026-01-03T10:00:00+00:00"}})


BUILDERS = {"canvas": canvas, "moodle": moodle, "moodle-flat": lambda d, z: moodle(d, z, in_folders=False),
            "classroom": classroom, "gradescope": gradescope, "folders": folders, "nbgrader": nbgrader_submitted}
