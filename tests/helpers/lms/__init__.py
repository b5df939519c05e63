"""LMS downloads built the way each LMS builds them, for ``tests/unit/intake/test_collect.py``.

Each builder writes one download (a folder, or the zip an instructor gets) and returns a
:class:`Download`: where it is, the submitted/ entries it must give (with the bytes each must hold),
the files that must appear in the report, and what the manifest must say. Every name, zip entry time and
receipt follows the rule quoted beside it from ``/work/shared/reference/lms-formats.md``.
"""

from __future__ import annotations

import datetime
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SAMPLES = REPO / "samples" / "submissions"
NB = "01_devices"
T0 = datetime.datetime(2026, 1, 5, 14, 0, 0)  # a zip stores local time; tests compare local times
# lms-formats.md, Canvas: "every zip entry carries the time the zip was built": a week after the hand-ins
BUILT = datetime.datetime(2026, 1, 12, 8, 15, 0)
# lms-formats.md, Canvas: "Zip name: <course short name slug>-<assignment title slug> submissions.zip"
CANVAS_ZIP = "gpu101-01-devices submissions.zip"


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


def utc(local: datetime.datetime) -> str:
    """The manifest's ``submitted_at`` for a time an LMS wrote without a zone (read as local time)."""
    return datetime.datetime.fromtimestamp(local.timestamp(), datetime.UTC).isoformat()


def _student_zip() -> bytes:
    """A student's own zip made on a Mac: Finder's "Compress" adds __MACOSX/ (lms-formats.md, Canvas: "Students
    hand in zips of their own inside it (with __MACOSX/)")."""
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("homework/01_devices.ipynb", mistakes())
        zf.writestr("homework/readme.md", b"hello")
        zf.writestr("__MACOSX/homework/._01_devices.ipynb", b"\x00\x05\x16\x07")
    return buf.getvalue()


def canvas(dest: Path, zipped: bool) -> Download:
    """Canvas "Download Submissions" (submissions.zip), flat.

    lms-formats.md, Canvas: "File name: <sortable name>[_LATE]_<user id>_<attachment id>_<display name>", the
    sortable name squeezed ("Unicode letters survive (müllerjosé, 王小明)"); "Text and URL entries:
    <name>[_LATE]_<user id>_text.html"; "Re-uploads of a file with the same name: display name 01_devices-1.ipynb";
    "every zip entry carries the time the zip was built" (BUILT, for every entry); "Students hand in zips of their
    own inside it (with __MACOSX/)".
    """
    files = {
        "smithbob_340934_208490284_01_devices.ipynb": correct(),
        "smithbob_340934_208490285_screenshot.png": b"\x89PNG fake",
        "smithbob_340934_text.html": b"<p>see my file</p>",             # a text entry beside the upload
        "smithbob_340935_208490290_01_devices.ipynb": untouched(),      # another Bob Smith: another user id
        "lovelaceada_LATE_334244_394803489_Copy of 01_devices.ipynb": untouched(),  # Colab's name, late
        "lovelaceada_LATE_334244_394803490_scratch.ipynb": stranger(),
        "turingalan_330001_400000001_01_devices.ipynb": untouched(),
        "turingalan_330001_400000002_01_devices-1.ipynb": mistakes(),  # the re-upload: the higher attachment id
        "müllerjosé_350001_400000010_01_devices.ipynb": correct(),     # Unicode sortable name
        "mullerjose_350002_400000011_01_devices.ipynb": untouched(),   # differs only by the accents: another person
        "王小明_350003_400000012_01_devices.ipynb": mistakes(),
        "hoppergrace_350010_400000020_homework.zip": _student_zip(),  # a zip of the student's own, from a Mac
        "notes from class.ipynb": correct(),  # not Canvas's pattern: whose?
    }
    expected = {("canvas_340934", NB): correct(), ("canvas_340935", NB): untouched(),
                ("canvas_334244", NB): untouched(), ("canvas_330001", NB): mistakes(),
                ("canvas_350001", NB): correct(), ("canvas_350002", NB): untouched(),
                ("canvas_350003", NB): mistakes(), ("canvas_350010", NB): mistakes()}
    manifest = {key: {"lms": "Canvas", "submitted_at": "", "time_source": "Canvas LATE flag",
                      "canvas_user_id": key[0].split("_")[1]} for key in expected}
    manifest[("canvas_340934", NB)].update(lms_id="340934", name="smithbob", late="false")
    manifest[("canvas_334244", NB)].update(late="true")
    manifest[("canvas_330001", NB)].update(submission_id="400000002")
    manifest[("canvas_350001", NB)].update(name="müllerjosé")
    manifest[("canvas_350003", NB)].update(name="王小明")
    return Download(write({k: (v, BUILT) for k, v in files.items()}, dest, CANVAS_ZIP if zipped else None),
                    expected, ["screenshot.png", "scratch.ipynb", "400000001_01_devices.ipynb",
                               "notes from class.ipynb", "smithbob_340934_text.html", "__MACOSX", "readme.md"],
                    manifest)


def canvas_three(dest: Path, zipped: bool) -> Download:
    """Three Canvas students (right, untouched and late, partly right after a re-upload), for the instructor's path
    (tests/e2e/grading/test_rerun.py grades it). The rules are :func:`canvas`'s; every entry carries the zip's
    build time."""
    files = {
        "smithbob_340934_208490284_01_devices.ipynb": correct(),
        "lovelaceada_LATE_334244_394803489_Copy of 01_devices.ipynb": untouched(),
        "turingalan_330001_400000001_01_devices.ipynb": untouched(),
        "turingalan_330001_400000002_01_devices-1.ipynb": mistakes(),
    }
    return Download(write({k: (v, BUILT) for k, v in files.items()}, dest, CANVAS_ZIP if zipped else None),
                    {("canvas_340934", NB): correct(), ("canvas_334244", NB): untouched(),
                     ("canvas_330001", NB): mistakes()},
                    ["400000001_01_devices.ipynb"],
                    {("canvas_334244", NB): {"late": "true", "submitted_at": ""}})


def canvas_anonymous(dest: Path, zipped: bool) -> Download:
    """Canvas with anonymous grading on.

    lms-formats.md, Canvas: "Anonymous grading: no name at all: anon_<5 base58 chars>_<attachment id>_<file>, or
    LATE_anon_…"; every entry carries the zip's build time.
    """
    files = {
        "anon_4Xk9P_500000001_01_devices.ipynb": correct(),
        "LATE_anon_7mQ2z_500000002_Copy of 01_devices.ipynb": untouched(),
        "anon_4Xk9P_500000003_plot.png": b"\x89PNG fake",
    }
    return Download(write({k: (v, BUILT) for k, v in files.items()}, dest, CANVAS_ZIP if zipped else None),
                    {("canvas_anon_4Xk9P", NB): correct(), ("canvas_anon_7mQ2z", NB): untouched()},
                    ["anon_4Xk9P_500000003_plot.png"],
                    {("canvas_anon_4Xk9P", NB): {"key": "anon_4Xk9P", "lms_id": "", "late": "false",
                                                  "submitted_at": ""},
                     ("canvas_anon_7mQ2z", NB): {"late": "true"}})


def moodle(dest: Path, zipped: bool, in_folders: bool = True) -> Download:
    """Moodle "Download all submissions".

    lms-formats.md, Moodle: "Prefix per student: … the full name (underscores replaced by spaces), then
    _<participant id>"; "Download submissions in folders": "<prefix>_assignsubmission_file_/<sub-folders>/<file>";
    "online text: <prefix>_assignsubmission_onlinetext_/onlinetext.html"; "Flat: <prefix>_assignsubmission_file_<file>";
    "Two students with the same full name differ only by the participant id"; "clean_filename …: Seán O'Brien ->
    Seán OBrien; accents stay"; "Zip entry times: the stored file's time, roughly the upload time".
    """
    sep = "/" if in_folders else ""
    files = {
        f"Ada Lovelace_1001_assignsubmission_file_{sep}01_devices.ipynb": (correct(), minutes(0)),
        f"Bob Smith_1002_assignsubmission_file_{sep}Copy of 01_devices (1).ipynb": (untouched(), minutes(3)),
        f"Bob Smith_1002_assignsubmission_file_{sep}data.csv": (b"a,b\n1,2\n", minutes(3)),
        f"Bob Smith_1005_assignsubmission_file_{sep}01_devices.ipynb": (mistakes(), minutes(8)),  # another Bob
        f"José Müller_1006_assignsubmission_file_{sep}01_devices.ipynb": (correct(), minutes(1)),
        f"Jose Muller_1007_assignsubmission_file_{sep}01_devices.ipynb": (untouched(), minutes(2)),
        f"Seán OBrien_1008_assignsubmission_file_{sep}01_devices.ipynb": (mistakes(), minutes(4)),
        f"Grace Hopper_1003_assignsubmission_file_{sep}Untitled3.ipynb": (correct(), minutes(4)),  # by content
        f"Grace Hopper_1003_assignsubmission_onlinetext_{sep}onlinetext.html": (b"<p>see file</p>", minutes(4)),
    }
    return Download(write(files, dest, "GPU101-Module 7 01_devices-4242.zip" if zipped else None),
                    {("moodle_1001", NB): correct(), ("moodle_1002", NB): untouched(), ("moodle_1005", NB): mistakes(),
                     ("moodle_1006", NB): correct(), ("moodle_1007", NB): untouched(), ("moodle_1008", NB): mistakes(),
                     ("moodle_1003", NB): correct()},
                    ["data.csv", "onlinetext.html"],
                    {("moodle_1001", NB): {"lms": "Moodle", "lms_id": "1001", "name": "Ada Lovelace", "key": "1001",
                                           "submitted_at": utc(minutes(0)), "time_source": "Moodle file time"},
                     ("moodle_1002", NB): {"name": "Bob Smith"}, ("moodle_1005", NB): {"name": "Bob Smith"},
                     ("moodle_1006", NB): {"name": "José Müller"}, ("moodle_1007", NB): {"name": "Jose Muller"},
                     ("moodle_1008", NB): {"name": "Seán OBrien"},
                     ("moodle_1003", NB): {"lms_id": "1003", "submitted_at": utc(minutes(4))}})


def moodle_groups(dest: Path, zipped: bool) -> Download:
    """A Moodle group assignment, with one member not in any group.

    lms-formats.md, Moodle: "Prefix per student: <group name>- (or Default group- for a student in no group, in a
    group assignment), then the full name"; "Group submissions: the loop runs per member, so each member gets the
    group's files under their own prefix".
    """
    files = {
        "Team A-Ada Lovelace_2001_assignsubmission_file_/01_devices.ipynb": (correct(), minutes(0)),
        "Team A-Alan Turing_2002_assignsubmission_file_/01_devices.ipynb": (correct(), minutes(0)),
        "Default group-Grace Hopper_2003_assignsubmission_file_/01_devices.ipynb": (untouched(), minutes(1)),
    }
    return Download(write(files, dest, "GPU101-Group project-4243.zip" if zipped else None),
                    {("moodle_2001", NB): correct(), ("moodle_2002", NB): correct(), ("moodle_2003", NB): untouched()},
                    [],
                    {("moodle_2001", NB): {"name": "Ada Lovelace", "group": "Team A"},
                     ("moodle_2002", NB): {"name": "Alan Turing", "group": "Team A"},
                     ("moodle_2003", NB): {"name": "Grace Hopper", "group": ""}})


def moodle_blind(dest: Path, zipped: bool) -> Download:
    """Moodle with blind marking on. lms-formats.md, Moodle: "Blind marking: Participant_<participant id>"."""
    files = {
        "Participant_3001_assignsubmission_file_/01_devices.ipynb": (correct(), minutes(0)),
        "Participant_3002_assignsubmission_file_/Copy of 01_devices.ipynb": (untouched(), minutes(2)),
    }
    return Download(write(files, dest, "GPU101-Blind-4244.zip" if zipped else None),
                    {("moodle_3001", NB): correct(), ("moodle_3002", NB): untouched()}, [],
                    {("moodle_3001", NB): {"name": "", "lms_id": "3001"}})


def classroom(dest: Path, zipped: bool) -> Download:
    """Google Classroom: the assignment's Drive folder as Drive zips it.

    lms-formats.md, Google Classroom: "Drive's folder download is <folder>-<YYYYMMDD>T<HHMMSS>Z-001.zip holding
    <folder>/"; "Make a copy for each student" names copies "<Student Name> - <title>" (*unverified* exact form);
    "Files students upload themselves keep their own names: ownership is not in the name".
    """
    files = {
        "01_devices/Ada Lovelace - 01_devices.ipynb": (correct(), minutes(0)),  # "make a copy for each student"
        "01_devices/Bob Smith - Copy of 01_devices.ipynb": (untouched(), minutes(2)),
        "01_devices/José Müller - 01_devices.ipynb": (mistakes(), minutes(3)),
        "01_devices/Jose Muller - 01_devices.ipynb": (correct(), minutes(4)),  # differs only by accents: two people
        "01_devices/01_devices (1).ipynb": (mistakes(), minutes(2)),  # an upload: nothing says whose
    }
    return Download(write(files, dest, "01_devices-20260105T140000Z-001.zip" if zipped else None),
                    {("classroom_ada_lovelace", NB): correct(), ("classroom_bob_smith", NB): untouched(),
                     ("classroom_josé_müller", NB): mistakes(), ("classroom_jose_muller", NB): correct()},
                    ["01_devices (1).ipynb"],
                    {("classroom_ada_lovelace", NB): {"lms": "Google Classroom", "name": "Ada Lovelace",
                                                      "lms_id": "", "time_source": "file time"},
                     ("classroom_josé_müller", NB): {"name": "José Müller"}})


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
    :sid: 2001
    :email: one@example.edu
  - :name: Pair Two
    :sid: '2002'
    :email: two@example.edu
  :created_at: 2026-01-04 09:00:00.000000000 -08:00
submission_9004:
  :submitters: []
  :created_at: 2026-04-26 17:34:00.861687000 Z
submission_9005:
  :submitters:
  - :name: 王小明
    :email: wang@example.edu
  :created_at: 2026-04-26 17:34:00.861687000 Z
"""


def gradescope(dest: Path, zipped: bool) -> Download:
    """Gradescope "Export Submissions".

    lms-formats.md, Gradescope: "assignment_<id>_export.zip -> assignment_<id>_export/submission_metadata.yml +
    submission_<id>/<files>"; ":created_at: (2026-04-26 17:34:00.861687000 Z)"; ":sid: may be an unquoted number or
    absent; :submitters: [] occurs. Groups: one folder, several submitters."
    """
    top = "assignment_4711_export/"
    files = {
        top + "submission_metadata.yml": (GRADESCOPE_YAML.encode(), minutes(30)),
        top + "submission_9001/01_devices.ipynb": (correct(), minutes(30)),
        top + "submission_9002/Copy of 01_devices.ipynb": (untouched(), minutes(30)),
        top + "submission_9002/notes.txt": (b"thanks", minutes(30)),
        top + "submission_9003/01_devices.ipynb": (mistakes(), minutes(30)),
        top + "submission_9004/01_devices.ipynb": (correct(), minutes(30)),  # :submitters: []: whose?
        top + "submission_9005/01_devices.ipynb": (untouched(), minutes(30)),  # no :sid: at all
        top + "submission_9999/01_devices.ipynb": (correct(), minutes(30)),  # no metadata: whose?
    }
    return Download(write(files, dest, "assignment_4711_export.zip" if zipped else None),
                    {("gradescope_1815", NB): correct(), ("gradescope_bob@example.edu", NB): untouched(),
                     ("gradescope_2001", NB): mistakes(), ("gradescope_2002", NB): mistakes(),
                     ("gradescope_wang@example.edu", NB): untouched()},
                    ["notes.txt", "submission_9004", "submission_9999"],
                    {("gradescope_1815", NB): {"lms": "Gradescope", "lms_id": "1815", "email": "ada@example.edu",
                                               "submission_id": "9001", "submitted_at": "2026-01-05T14:00:00+00:00",
                                               "time_source": "Gradescope created_at", "sid": "1815"},
                     ("gradescope_bob@example.edu", NB): {"submitted_at": "2026-01-05T14:30:00+00:00", "sid": ""},
                     ("gradescope_2001", NB): {"lms_id": "2001", "submitted_at": "2026-01-04T17:00:00+00:00"},
                     ("gradescope_wang@example.edu", NB): {"name": "王小明",
                                                           "submitted_at": "2026-04-26T17:34:01+00:00"}})


def _receipt(name: str, username: str, when: datetime.datetime, original: str, stored: str) -> bytes:
    """lms-formats.md, Blackboard: receipt "Name: First Last (username)", "Date Submitted: …", "Files:" with
    "Original filename:" / "Filename:"."""
    return (f"Name: {name} ({username})\nAssignment: Assignment 1\nDate Submitted: "
            f"{when:%A, %B %d, %Y %I:%M:%S %p} CET\nCurrent Grade: Needs Grading\n\nSubmission Field:\n"
            f"There is no student submission text data for this assignment.\n\nComments:\nThere are no student "
            f"comments for this assignment.\n\nFiles:\n\tOriginal filename: {original}\n\tFilename: {stored}\n"
            ).encode()


def blackboard(dest: Path, zipped: bool) -> Download:
    """Blackboard Learn Grade Center "Assignment File Download", all attempts.

    lms-formats.md, Blackboard: "Zip gradebook_<course id>_<column>_<YYYY-MM-DD-HH-MM-SS>.zip, flat"; "Files
    <Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<original name>, plus one receipt per attempt
    <Assignment>_<username>_attempt_<stamp>.txt"; "the assignment part may itself contain _ and digits
    (Assignment_1_20123456_attempt_…)"; "All attempts downloads one file set per attempt, each with its own stamp:
    the stamp is the submission time". Usernames here are numeric (a student number) and plain.
    """
    first, second = datetime.datetime(2026, 1, 5, 14, 0, 0), datetime.datetime(2026, 1, 6, 9, 30, 0)
    late = datetime.datetime(2026, 1, 5, 15, 0, 0)

    def attempt(user, name, when, original, data):
        stem = f"Assignment_1_{user}_attempt_{when:%Y-%m-%d-%H-%M-%S}"
        return {f"{stem}_{original}": data,
                f"{stem}.txt": _receipt(name, user, when, original, f"{stem}_{original}")}

    files = {**attempt("20123456", "Ada Lovelace", first, "01_devices.ipynb", untouched()),
             **attempt("20123456", "Ada Lovelace", second, "01_devices.ipynb", correct()),  # a second attempt
             **attempt("jsmith", "John Smith", late, "Copy of 01_devices.ipynb", mistakes()),
             **attempt("jsmith2", "John Smith", first, "01_devices.ipynb", untouched()),  # same name, other person
             **attempt("mjose", "José Müller", first, "01_devices.ipynb", correct())}
    return Download(write({k: (v, BUILT) for k, v in files.items()}, dest,
                          "gradebook_GPU101_Assignment_1_2026-01-12-08-15-00.zip" if zipped else None),
                    {("blackboard_20123456", NB): correct(), ("blackboard_jsmith", NB): mistakes(),
                     ("blackboard_jsmith2", NB): untouched(), ("blackboard_mjose", NB): correct()},
                    ["Assignment_1_20123456_attempt_2026-01-05-14-00-00_01_devices.ipynb",
                     "Assignment_1_20123456_attempt_2026-01-05-14-00-00.txt",
                     "Assignment_1_20123456_attempt_2026-01-06-09-30-00.txt"],
                    {("blackboard_20123456", NB): {"lms": "Blackboard Learn", "lms_id": "20123456",
                                                   "name": "Ada Lovelace", "submitted_at": utc(second),
                                                   "time_source": "Blackboard attempt stamp",
                                                   "username": "20123456"},
                     ("blackboard_jsmith", NB): {"name": "John Smith", "submitted_at": utc(late)},
                     ("blackboard_jsmith2", NB): {"name": "John Smith", "submitted_at": utc(first)},
                     ("blackboard_mjose", NB): {"name": "José Müller"}})


def brightspace(dest: Path, zipped: bool, flat: bool = False) -> Download:
    """D2L Brightspace Assignments "Download".

    lms-formats.md, Brightspace: "Current layout: one folder per submission <id>-<id> - <First Last> - <Mon D,
    YYYY HMM AM>/<file> plus index.html. Older flat layout: <id>-<id> - <Name> - <date> - <file> plus index.html.
    A resubmission is another folder or file with its own date (keep the newest); the date is the submission time."
    Here the second id is the person's (it repeats across Ada's resubmission); the first changes.
    """
    sep = " - " if flat else "/"
    files = {
        f"101-5001 - Ada Lovelace - Jan 5, 2026 233 PM{sep}01_devices.ipynb": untouched(),
        f"102-5001 - Ada Lovelace - Jan 6, 2026 1005 AM{sep}01_devices.ipynb": correct(),  # the resubmission
        f"103-5002 - Bob Smith - Jan 5, 2026 1159 PM{sep}Copy of 01_devices.ipynb": mistakes(),
        f"104-5003 - Bob Smith - Jan 5, 2026 900 AM{sep}01_devices.ipynb": untouched(),  # another Bob Smith
        f"105-5004 - José Müller - Jan 4, 2026 1200 PM{sep}01_devices.ipynb": correct(),
        f"105-5004 - José Müller - Jan 4, 2026 1200 PM{sep}report.pdf": b"%PDF-1.4",
        "index.html": b"<html><body><table><tr><td>Ada Lovelace</td></tr></table></body></html>",
    }
    return Download(write({k: (v, BUILT) for k, v in files.items()}, dest,
                          "Assignment 1 Download Jan 12, 2026 815 AM.zip" if zipped else None),
                    {("brightspace_5001", NB): correct(), ("brightspace_5002", NB): mistakes(),
                     ("brightspace_5003", NB): untouched(), ("brightspace_5004", NB): correct()},
                    ["index.html", "report.pdf", "101-5001 - Ada Lovelace - Jan 5, 2026 233 PM"],
                    {("brightspace_5001", NB): {"lms": "D2L Brightspace", "lms_id": "5001", "name": "Ada Lovelace",
                                                "submitted_at": utc(datetime.datetime(2026, 1, 6, 10, 5)),
                                                "submission_id": "102-5001", "time_source": "Brightspace folder date"},
                     ("brightspace_5002", NB): {"submitted_at": utc(datetime.datetime(2026, 1, 5, 23, 59))},
                     ("brightspace_5003", NB): {"name": "Bob Smith",
                                                "submitted_at": utc(datetime.datetime(2026, 1, 5, 9, 0))},
                     ("brightspace_5004", NB): {"name": "José Müller"}})


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


BUILDERS = {"canvas": canvas, "canvas-three": canvas_three, "canvas-anonymous": canvas_anonymous,
            "moodle": moodle, "moodle-flat": lambda d, z: moodle(d, z, in_folders=False),
            "moodle-groups": moodle_groups, "moodle-blind": moodle_blind, "classroom": classroom,
            "gradescope": gradescope, "blackboard": blackboard, "brightspace": brightspace,
            "brightspace-flat": lambda d, z: brightspace(d, z, flat=True),
            "folders": folders, "nbgrader": nbgrader_submitted}
