"""Rosters (graders.intake.roster): each LMS's own export, sniffed from its header.

Every fixture is written the way its LMS writes it, following /work/shared/reference/lms-formats.md
(cited beside each). Where that file says nothing about a roster's exact columns (Gradescope, Google
Classroom), the fixture follows the fields the download itself carries, and says so.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from graders.intake import roster
from graders.intake.roster import RosterError


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def canvas_roster(tmp_path: Path) -> Path:
    # lms-formats.md, Canvas, Gradebook CSV: "column 0 contains Student, column 1 contains ID; then optionally SIS
    # User ID, SIS Login ID (and Integration ID, Root Account); the last identity column contains Section"; "A row
    # whose first cell contains Points Possible (real exports write it with four leading spaces)"; "Current/Final
    # ... Score" columns are Canvas's own.
    return write(tmp_path / "canvas_gradebook.csv",
                 "Student,ID,SIS User ID,SIS Login ID,Integration ID,Section,01_devices (4411),Current Score\n"
                 "    Points Possible,,,,,,10,(read only)\n"
                 '"Müller, José",9001,S1001,jmuller,,Section A,,\n'
                 '"王, 小明",9002,S1002,xwang,,Section A,,\n'
                 '"Lovelace, Ada",9003,S1003,alovelace,,Section B,,\n'
                 '"Student, Test",9999,,,,Section A,,\n')


def moodle_grades(tmp_path: Path) -> Path:
    # lms-formats.md, Moodle, Grade CSV import: "a roster (Moodle's own grade export or participants list: First
    # name, Last name, ID number, Email address, …)". Two students share a full name: "Two students with the same
    # full name differ only by the participant id".
    return write(tmp_path / "moodle_grades.csv",
                 "First name,Last name,ID number,Institution,Department,Email address,"
                 "Assignment: 01_devices (Real),Last downloaded from this course\n"
                 "Ada,Lovelace,20231,,,ada.l@uni.example,-,\n"
                 "Ada,Lovelace,20232,,,ada.lovelace2@uni.example,-,\n"
                 "Seán,O'Brien,20233,,,sean@uni.example,-,\n")


def moodle_participants(tmp_path: Path) -> Path:
    # lms-formats.md, Moodle: "participants list: First name, Last name, ID number, Email address, …"; the list
    # holds the teachers too.
    return write(tmp_path / "courseid_5_participants.csv",
                 "First name,Last name,Email address,Roles,Groups,Last access to course\n"
                 "Grace,Hopper,grace@uni.example,Student,\"Team A, Team B\",2 days\n"
                 "Alan,Turing,alan@uni.example,Teacher,,now\n")


def blackboard_download(tmp_path: Path) -> Path:
    # lms-formats.md, Blackboard, Grade Center upload: "CSV or tab-delimited with Last Name, First Name, Username,
    # and item columns <Name> [Total Pts: N] |<column id>; Username is the key". The download is tab-separated
    # UTF-16 LE with a BOM (its .xls). Numeric usernames occur (Assignment_1_20123456_attempt_…).
    text = ("Last Name\tFirst Name\tUsername\tStudent ID\tLast Access\tAvailability\t"
            "Assignment 1 [Total Pts: 10 Score] |123456\n"
            "Lovelace\tAda\t20123456\tS1003\t2026-01-05\tAvailable\t\n"
            "Müller\tJosé\tjmuller\tS1001\t2026-01-05\tAvailable\t\n")
    return write(tmp_path / "gc_COURSE_fullgc_2026-01-06-10-00-00.xls", "\ufeff" + text, "utf-16-le")


def brightspace_export(tmp_path: Path) -> Path:
    # lms-formats.md, Brightspace, Grade import CSV: "an OrgDefinedId or Username column (exports prefix values with
    # #), item columns <Item> Points Grade <Numeric MaxPoints:N>, and a last column End-of-Line Indicator holding #".
    return write(tmp_path / "brightspace_grades.csv",
                 "OrgDefinedId,Username,Last Name,First Name,Email,01_devices Points Grade <Numeric MaxPoints:10>,"
                 "End-of-Line Indicator\n"
                 "#1001,#jmuller,Müller,José,jose@uni.example,,#\n"
                 "#1002,#ada,Lovelace,Ada,ada@uni.example,,#\n", "utf-8-sig")


def gradescope_roster(tmp_path: Path) -> Path:
    # lms-formats.md, Gradescope: submitters carry ":name:, :sid:, :email:"; the roster holds the same fields
    # (its exact column names are not in lms-formats.md: unverified), and lists the staff with a Role.
    return write(tmp_path / "gradescope_roster.csv",
                 "Name,Email,SID,Role\nAda Lovelace,ada@uni.example,20231,Student\n"
                 "José Müller,jose@uni.example,,Student\nPat Grader,pat@uni.example,,TA\n")


def test_canvas_gradebook_export_gives_user_id_sis_ids_and_section(tmp_path):
    r = roster.read(canvas_roster(tmp_path))
    assert r.lms == "canvas"
    assert len(r.members) == 4                      # Points Possible is no student; the Test Student is one
    jose = r.find("canvas_user_id", "9001")[0]
    assert jose.name == "José Müller" and (jose.first_name, jose.last_name) == ("José", "Müller")
    assert dict(jose.ids) == {"canvas_user_id": "9001", "sis_user_id": "S1001", "sis_login_id": "jmuller"}
    assert jose.section == "Section A"
    assert r.find("canvas_user_id", "009001") == [jose]          # the importer's to_i
    assert r.find("sis_login_id", "JMuller") == [jose]
    assert r.find("sis_user_id", "s1001") == []                  # an SIS id is not case-folded
    assert r.kinds() == ["canvas_user_id", "sis_user_id", "sis_login_id"]


def test_names_match_in_every_form_an_lms_writes_them_but_accents_count(tmp_path):
    r = roster.read(canvas_roster(tmp_path))
    jose = r.find("canvas_user_id", "9001")
    assert r.by_name("José Müller") == jose
    assert r.by_name("  josé   MÜLLER ") == jose
    assert r.by_name("Müller, José") == jose
    assert r.by_name("müllerjosé") == jose                       # Canvas's file-name form
    assert r.by_name(unicodedata.normalize("NFD", "José Müller")) == jose
    assert r.by_name("Jose Muller") == [] and r.by_name("mullerjose") == []
    assert r.by_name("王小明") == r.find("canvas_user_id", "9002")
    assert r.by_name("Ada") == []


def test_moodle_grade_export_keeps_same_name_students_apart(tmp_path):
    r = roster.read(moodle_grades(tmp_path))
    assert r.lms == "moodle"
    both = r.by_name("Ada Lovelace")
    assert [m.ids["id_number"] for m in both] == ["20231", "20232"]   # ambiguous: the caller reports it
    assert r.find("email", "ADA.L@uni.example") == [both[0]]
    sean = r.find("id_number", "20233")
    assert r.by_name("Seán OBrien") == sean                     # the name as clean_filename leaves it
    assert r.by_name("Sean OBrien") == []


def test_moodle_participants_list_drops_teachers_and_keeps_groups(tmp_path):
    r = roster.read(moodle_participants(tmp_path))
    assert r.lms == "moodle"
    assert [(m.name, m.groups) for m in r.members] == [("Grace Hopper", ("Team A", "Team B"))]
    assert dict(r.members[0].ids) == {"email": "grace@uni.example"}


def test_blackboard_utf16_tab_download_with_numeric_usernames(tmp_path):
    r = roster.read(blackboard_download(tmp_path))
    assert r.lms == "blackboard"
    assert [dict(m.ids) for m in r.members] == [{"username": "20123456", "sid": "S1003"},
                                                {"username": "jmuller", "sid": "S1001"}]
    assert r.members[1].name == "José Müller"


def test_blackboard_csv_upload_form_is_read_too(tmp_path):
    # lms-formats.md, Blackboard: "Grade Center upload: CSV or tab-delimited"
    p = write(tmp_path / "bb.csv", "Last Name,First Name,Username\nLovelace,Ada,alove\n")
    assert roster.read(p).find("username", "ALOVE")[0].name == "Ada Lovelace"


def test_brightspace_export_loses_its_hash_prefix(tmp_path):
    r = roster.read(brightspace_export(tmp_path))
    assert r.lms == "brightspace"
    assert dict(r.members[0].ids) == {"org_defined_id": "1001", "username": "jmuller", "email": "jose@uni.example"}
    assert r.find("org_defined_id", "#1002") == r.find("username", "ada") == [r.members[1]]


def test_gradescope_roster_without_staff(tmp_path):
    r = roster.read(gradescope_roster(tmp_path))
    assert r.lms == "gradescope"
    assert [m.name for m in r.members] == ["Ada Lovelace", "José Müller"]
    assert dict(r.members[1].ids) == {"email": "jose@uni.example"}       # no SID: not an empty one


def test_classroom_and_generic_csv(tmp_path):
    # Google Classroom's grade download (lms-formats.md: "Classroom has no CSV grade import"; its export's
    # columns are unverified): names and the Google account's address; a "Points" row carries no address.
    c = roster.read(write(tmp_path / "classroom.csv", "Last Name,First Name,Email Address,01_devices\n"
                          ",,,10\nLovelace,Ada,ada@school.example,\n"))
    assert c.lms == "classroom" and [m.ids for m in c.members] == [{"email": "ada@school.example"}]
    g = roster.read(write(tmp_path / "people.csv", "student_id;name;email\ns1;Ada Lovelace;ada@x.example\n"))
    assert g.lms == "generic" and dict(g.members[0].ids) == {"sid": "s1", "email": "ada@x.example"}


def test_unknown_or_unreadable_files_are_refused_with_what_was_expected(tmp_path):
    with pytest.raises(RosterError) as error:
        roster.read(write(tmp_path / "x.csv", "Vorname,Nachname,Matrikel\nAda,Lovelace,1\n"))
    message = str(error.value)
    assert "x.csv" in message and "'Vorname'" in message
    for expected in ("Student, ID, SIS User ID", "ID number", "Username", "OrgDefinedId", "SID", "student_id"):
        assert expected in message
    with pytest.raises(RosterError, match="spreadsheet"):
        roster.read(write(tmp_path / "grades.xlsx", "PK\x03\x04 not really"))
    with pytest.raises(RosterError, match="empty"):
        roster.read(write(tmp_path / "empty.csv", "\n"))
    with pytest.raises(RosterError, match="no student"):
        roster.read(write(tmp_path / "only_header.csv", "Student,ID,Section\n    Points Possible,,\n"))
    with pytest.raises(RosterError, match="cannot read"):
        roster.read(tmp_path / "missing.csv")


def test_find_rejects_an_unknown_kind(tmp_path):
    with pytest.raises(KeyError):
        roster.read(canvas_roster(tmp_path)).find("student_number", "1")
