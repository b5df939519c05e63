"""Rosters (graders.intake.roster): each LMS's own export, sniffed from its header.

Every fixture is written the way its LMS writes it, following /work/shared/reference/lms-formats.md
(cited beside each). Where that file says nothing about a roster's exact columns (Gradescope, Google
Classroom), the fixture follows the fields the download itself carries, and says so.
"""

from __future__ import annotations

import unicodedata

import pytest

from graders.intake import roster
from graders.intake.roster import RosterError
from tests.helpers.rosters import (
    blackboard_download,
    brightspace_export,
    canvas_roster,
    gradescope_roster,
    moodle_grades,
    moodle_participants,
    write,
)


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
