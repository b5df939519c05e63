"""``collect --roster``: hand-ins joined to the class list the instructor exports from the LMS.

Downloads come from ``tests/helpers/lms``; rosters are written here the way each LMS writes them, citing
``/work/shared/reference/lms-formats.md`` (or the interface in notes/lms_interface.md where that file says nothing
of a roster's columns). Fast: no notebook is run.
"""

from __future__ import annotations

import csv
from pathlib import Path

from graders.__main__ import main
from graders.intake.collect import MANIFEST, REPORT, collect
from tests.helpers import lms
from tests.helpers.rosters import write as _write  # a roster file's bytes, in its LMS's encoding

NB = lms.NB


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def canvas_gradebook(tmp_path: Path) -> Path:
    # lms-formats.md, Canvas, Gradebook CSV import: "column 0 contains Student, column 1 contains ID; then optionally
    # SIS User ID, SIS Login ID …; the last identity column contains Section"; "A row whose first cell contains
    # Points Possible (real exports write it with four leading spaces)".
    return _write(tmp_path / "gradebook.csv",
                  "Student,ID,SIS User ID,SIS Login ID,Section,01_devices (4411)\n"
                  "    Points Possible,,,,,10\n"
                  '"Smith, Bob",340934,S100,bsmith,Section A,\n'
                  '"Lovelace, Ada",334244,S101,alovelace,Section A,\n'
                  '"Müller, José",350001,S102,jmuller,Section A,\n'
                  '"Hopper, Grace",350099,S199,ghopper,Section B,\n')  # no hand-in


def test_canvas_roster_fills_the_import_ids_and_names_who_is_missing(tmp_path):
    course = tmp_path / "course"
    lines = []
    collect(lms.canvas(tmp_path / "dl", zipped=True).path, course, names=[NB], echo=lines.append,
            roster=canvas_gradebook(tmp_path))
    manifest = {r["student_id"]: r for r in _rows(course / MANIFEST)}
    assert (manifest["canvas_340934"]["sis_user_id"], manifest["canvas_340934"]["sis_login_id"]) == ("S100", "bsmith")
    assert manifest["canvas_350001"]["sis_user_id"] == "S102"
    assert manifest["canvas_340935"]["sis_user_id"] == ""  # the other Bob Smith is not in this roster ...
    assert any("canvas_340935" in line and "no roster entry" in line for line in lines)  # ... and that is said
    missing = [r for r in _rows(course / REPORT) if r["file"] == ""]
    assert [(r["student"], "no hand-in" in r["reason"]) for r in missing] == [("Grace Hopper", True)]


def test_a_canvas_group_hand_in_reaches_every_member_the_roster_names(tmp_path):
    # lms-formats.md, Canvas: "Group assignments graded as a group: ONE file per group, named after the group (the
    # group name takes the place of the sortable name) with ONE member's (the representative's) user id."
    download = lms.write({"teamrocket_340934_400000050_01_devices.ipynb": (lms.correct(), lms.BUILT)},
                         tmp_path / "dl", "submissions.zip")
    # notes/lms_interface.md: the generic roster CSV (columns named after the identifier kinds) with a Groups column
    roster = _write(tmp_path / "groups.csv", "name,canvas_user_id,email,groups\n"
                                             "Bob Smith,340934,bob@uni.example,Team Rocket\n"
                                             "Ada Lovelace,334244,ada@uni.example,Team Rocket\n"
                                             "Alan Turing,330001,alan@uni.example,Team Blue\n")
    lines = []
    collect(download, tmp_path / "course", names=[NB], echo=lines.append, roster=roster)
    manifest = {r["student_id"]: r for r in _rows(tmp_path / "course" / MANIFEST)}
    assert set(manifest) == {"canvas_340934", "canvas_334244"}
    assert {r["group"] for r in manifest.values()} == {"Team Rocket"}
    assert manifest["canvas_334244"]["name"] == "Ada Lovelace" and manifest["canvas_334244"]["canvas_user_id"] == \
        "334244"
    assert any("group hand-in 'Team Rocket'" in line and "every member" in line for line in lines)


def test_a_canvas_group_hand_in_without_group_members_warns_that_the_others_got_nothing(tmp_path):
    # lms-formats.md, Canvas: the group's file carries "ONE member's (the representative's) user id"
    download = lms.write({"teamrocket_340934_400000050_01_devices.ipynb": (lms.correct(), lms.BUILT)},
                         tmp_path / "dl", "submissions.zip")
    lines = []
    collect(download, tmp_path / "course", names=[NB], echo=lines.append, roster=canvas_gradebook(tmp_path))
    manifest = _rows(tmp_path / "course" / MANIFEST)
    assert [(r["student_id"], r["group"], r["name"]) for r in manifest] == [("canvas_340934", "teamrocket",
                                                                             "Bob Smith")]
    warning = next(line for line in lines if "note:" in line and "teamrocket" in line)
    assert "other members got nothing" in warning


def classroom_roster(tmp_path: Path) -> Path:
    # notes/lms_interface.md: "Gradescope roster / Classroom CSV (Name or First/Last, Email, SID)"; lms-formats.md,
    # Google Classroom: "No stable id is in the download: two students with the same name cannot be told apart
    # without a roster". Two Ada Lovelaces; José Müller but no Jose Muller.
    return _write(tmp_path / "classroom.csv", "Last Name,First Name,Email Address\n"
                                              "Lovelace,Ada,ada1@school.example\n"
                                              "Lovelace,Ada,ada2@school.example\n"
                                              "Smith,Bob,bob@school.example\n"
                                              "Müller,José,jose@school.example\n")


def test_classroom_the_roster_decides_and_an_ambiguous_name_is_reported_with_both(tmp_path):
    course = tmp_path / "course"
    lines = []
    collect(lms.classroom(tmp_path / "dl", zipped=True).path, course, names=[NB], echo=lines.append,
            roster=classroom_roster(tmp_path))
    manifest = {r["student_id"]: r for r in _rows(course / MANIFEST)}
    assert manifest["classroom_bob@school.example"]["email"] == "bob@school.example"
    assert manifest["classroom_jose@school.example"]["name"] == "José Müller"
    assert "classroom_jose_muller" in manifest  # not in the roster: kept under the name, never José's
    assert not any("ada" in sid for sid in manifest)  # two roster entries: not guessed
    report = {r["file"].split(":", 1)[-1]: r["reason"] for r in _rows(course / REPORT)}
    ada = report["01_devices/Ada Lovelace - 01_devices.ipynb"]
    assert "ada1@school.example" in ada and "ada2@school.example" in ada and "Not guessed" in ada


def test_classroom_without_a_roster_never_merges_one_name_s_two_files(tmp_path):
    # lms-formats.md, Google Classroom: "<Student Name> - <title>"; nothing else tells two Ada Lovelaces apart
    download = lms.write({"01_devices/Ada Lovelace - 01_devices.ipynb": (lms.correct(), lms.T0),
                          "01_devices/Ada Lovelace - 01_devices (1).ipynb": (lms.untouched(), lms.minutes(5))},
                         tmp_path / "dl", "01_devices-20260105T140000Z-001.zip")
    collect(download, tmp_path / "course", names=[NB], echo=lambda *_: None)
    assert not (tmp_path / "course" / "submitted").exists()
    reasons = [r["reason"] for r in _rows(tmp_path / "course" / REPORT)]
    assert len(reasons) == 2 and all("two students with the same name" in r for r in reasons)


def moodle_grades(tmp_path: Path) -> Path:
    # lms-formats.md, Moodle: "the instructor must supply a roster (Moodle's own grade export or participants list:
    # First name, Last name, ID number, Email address, …) to join on".
    return _write(tmp_path / "moodle_grades.csv",
                  "First name,Last name,ID number,Institution,Department,Email address\n"
                  "Ada,Lovelace,20231,,,ada@uni.example\n"
                  "Bob,Smith,20240,,,bob1@uni.example\n"
                  "Bob,Smith,20241,,,bob2@uni.example\n")


def test_moodle_roster_joins_one_person_across_two_assignments_and_never_guesses(tmp_path):
    # lms-formats.md, Moodle: "The participant id comes from assign_user_mapping: one id per assignment and user":
    # Ada is 1001 in the 01_devices assignment and 4001 in the 02_transfers one.
    second = lms.SAMPLES / "correct" / "02_transfers.ipynb"
    folder = tmp_path / "downloads"
    lms.write({"Ada Lovelace_1001_assignsubmission_file_/01_devices.ipynb": (lms.correct(), lms.T0),
               "Bob Smith_1002_assignsubmission_file_/01_devices.ipynb": (lms.untouched(), lms.T0)},
              folder, "GPU101-01_devices-11.zip")
    lms.write({"Ada Lovelace_4001_assignsubmission_file_/02_transfers.ipynb": (second.read_bytes(), lms.T0)},
              folder, "GPU101-02_transfers-12.zip")
    course = tmp_path / "course"
    lines = []
    collect(folder, course, names=[NB, "02_transfers"], echo=lines.append, roster=moodle_grades(tmp_path))
    rows = _rows(course / MANIFEST)
    ada = [(r["student_id"], r["notebook"], r["lms_id"], r["id_number"]) for r in rows if r["name"] == "Ada Lovelace"]
    assert sorted(ada) == [("moodle_20231", "01_devices", "1001", "20231"),
                           ("moodle_20231", "02_transfers", "4001", "20231")]
    bob = [r for r in rows if r["name"] == "Bob Smith"]
    assert [(r["student_id"], r["id_number"]) for r in bob] == [("moodle_1002", "")]  # two Bob Smiths: not guessed
    assert any("moodle_1002" in line and "Not guessed" in line for line in lines)
    roster_rows = {r["student"]: r["reason"] for r in _rows(course / REPORT) if r["file"] == ""}
    assert list(roster_rows) == ["Bob Smith"] and "may be theirs" in roster_rows["Bob Smith"]  # both Bobs, said so


def test_brightspace_roster_joins_by_orgdefinedid_only_when_the_name_agrees(tmp_path):
    # lms-formats.md, Brightspace, Grade import CSV: "an OrgDefinedId or Username column (exports prefix values with
    # #) …, and a last column End-of-Line Indicator holding #". OrgDefinedId 5002 is someone else than the
    # download's internal id 5002 (Bob Smith): it must not be joined by that number.
    roster = _write(tmp_path / "grades.csv", "OrgDefinedId,Username,Last Name,First Name,Email,End-of-Line Indicator\n"
                                             "#5001,#alovelace,Lovelace,Ada,ada@uni.example,#\n"
                                             "#5002,#gh,Hopper,Grace,grace@uni.example,#\n"
                                             "#S77,#jmuller,Müller,José,jose@uni.example,#\n", "utf-8-sig")
    course = tmp_path / "course"
    collect(lms.brightspace(tmp_path / "dl", zipped=True).path, course, names=[NB], echo=lambda *_: None,
            roster=roster)
    manifest = {r["student_id"]: r for r in _rows(course / MANIFEST)}
    assert manifest["brightspace_5001"]["org_defined_id"] == "5001"  # the same number and the same name
    assert manifest["brightspace_5002"]["org_defined_id"] == ""      # Bob Smith is not Grace Hopper
    assert (manifest["brightspace_5004"]["org_defined_id"], manifest["brightspace_5004"]["username"]) == \
        ("S77", "jmuller")                                          # by the name, the one roster entry with it


def test_blackboard_roster_joins_on_the_username(tmp_path):
    # lms-formats.md, Blackboard, Grade Center: "CSV or tab-delimited with Last Name, First Name, Username …;
    # Username is the key"; the download is UTF-16 tab-separated.
    roster = _write(tmp_path / "gc_GPU101_fullgc_2026-01-12-08-00-00.xls",
                    "\ufeffLast Name\tFirst Name\tUsername\tStudent ID\tAssignment 1 [Total Pts: 10 Score] |123\n"
                    "Lovelace\tAda\t20123456\tS1003\t\nSmith\tJohn\tjsmith\tS1004\t\n", "utf-16-le")
    course = tmp_path / "course"
    collect(lms.blackboard(tmp_path / "dl", zipped=True).path, course, names=[NB], echo=lambda *_: None,
            roster=roster)
    manifest = {r["student_id"]: r for r in _rows(course / MANIFEST)}
    assert (manifest["blackboard_20123456"]["username"], manifest["blackboard_20123456"]["sid"]) == ("20123456",
                                                                                                     "S1003")
    assert manifest["blackboard_jsmith2"]["sid"] == ""  # the other John Smith: not in the roster, not guessed


def test_a_roster_that_is_none_stops_before_anything_is_written(tmp_path, capsys):
    bad = _write(tmp_path / "notes.csv", "what,ever\n1,2\n")
    course = tmp_path / "course"
    download = lms.canvas(tmp_path / "dl", zipped=True).path
    assert main(["collect", str(download), "--course", str(course), "--notebooks", NB, "--roster", str(bad)]) == 2
    assert "notes.csv" in capsys.readouterr().out
    assert not course.exists()
    assert main(["collect", str(download), "--course", str(course), "--notebooks", NB, "--roster",
                 str(canvas_gradebook(tmp_path))]) == 0


def test_a_roster_given_on_a_later_run_fills_the_ids_of_work_already_filed(tmp_path):
    course = tmp_path / "course"
    download = lms.canvas(tmp_path / "dl", zipped=True).path
    collect(download, course, names=[NB], echo=lambda *_: None)
    assert {r["sis_user_id"] for r in _rows(course / MANIFEST)} == {""}
    again = collect(download, course, names=[NB], echo=lambda *_: None, roster=canvas_gradebook(tmp_path))
    assert {f.status for f in again.filed} == {"unchanged"}  # no notebook rewritten
    manifest = {r["student_id"]: r for r in _rows(course / MANIFEST)}
    assert (manifest["canvas_340934"]["sis_user_id"], manifest["canvas_340934"]["name"]) == ("S100", "Bob Smith")
