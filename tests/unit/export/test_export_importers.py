"""Every LMS export, read back by that LMS's importer as lms-formats.md states its rules (tests/helpers/importers.py).

Each case is a course as ``collect`` leaves it after that LMS's download: nbgrader students keyed by the
LMS identifier, ``collect_manifest.csv`` rows with the columns of /work/notes/lms_interface.md, a gradebook
written with nbgrader's API (as tests/unit/export/test_lms_export.py does), and the roster the instructor exports
from the LMS. Each validator is also shown to refuse a wrong file.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from graders import __main__ as cli
from graders.export.lms import BlackboardExport, BrightspaceExport, CanvasExport, ExportRefused, LmsExport, MoodleExport
from graders.intake import roster
from tests.helpers.gradebooks import NOTEBOOKS, export, make_course
from tests.helpers.importers import (
    Rejected,
    blackboard_import,
    brightspace_import,
    canvas_import,
    generic_import,
    moodle_import,
)
from tests.helpers.rosters import brightspace_export, canvas_roster, moodle_grades, write


def hand_in(student_id, lms, lms_id, name, notebook="01_devices", **extra) -> dict:
    return {"student_id": student_id, "lms": lms, "lms_id": lms_id, "name": name, "notebook": notebook, **extra}


def lateness(out: Path) -> dict[tuple[str, str], dict]:
    with open(out.with_name(out.stem + "_lateness.csv"), newline="", encoding="utf-8") as f:
        return {(r["name"], r["notebook"]): r for r in csv.DictReader(f)}


def said(plugin, start: str) -> list[str]:
    return [w for w in plugin.warnings if w.startswith(start)]


# ---------------------------------------------------------------------------------------------
# Canvas

@pytest.fixture
def canvas_course(tmp_path):
    # lms-formats.md, Canvas, "File name: <sortable name>[_LATE]_<user id>_…": the download gives each student's
    # Canvas user id and the LATE flag; "Time: every zip entry carries the time the zip was built": no time.
    rows = [hand_in("canvas_9001", "canvas", "9001", "José Müller", late="true", time_source="Canvas LATE flag"),
            hand_in("canvas_9002", "canvas", "9002", "王小明", late="false", time_source="Canvas LATE flag"),
            hand_in("canvas_9002", "canvas", "9002", "王小明", "02_transfers", late="false",
                    time_source="Canvas LATE flag"),
            hand_in("canvas_9100", "canvas", "9100", "Dropped Person", late="false")]   # left the course
    return make_course(tmp_path / "course", {"canvas_9001": (4, None), "canvas_9002": (5, 3),
                                             "canvas_9100": (2, None)}, rows)


def test_canvas_export_imports_by_canvas_user_id_with_the_roster(canvas_course, tmp_path):
    out = tmp_path / "grades_canvas.csv"
    plugin = export(CanvasExport, canvas_course, out, roster=str(canvas_roster(tmp_path)), due="2026-01-05T12:00")
    result = canvas_import(out, roster.read(tmp_path / "canvas_gradebook.csv"))
    # the roster's own assignment column is reused, so Canvas updates it instead of creating a new one
    assert result.new_items == ["02_transfers"] and "01_devices (4411)" in result.items
    assert result.how == {"9001": "ID", "9002": "ID", "9003": "ID", "9999": "ID"}
    assert result.grades["9001"] == {"01_devices (4411)": "4", "02_transfers": ""}
    assert result.grades["9002"] == {"01_devices (4411)": "5", "02_transfers": "3"}
    assert result.grades["9003"] == {"01_devices (4411)": "", "02_transfers": ""}    # blank: "no change"
    # named, and marked beside the file
    assert any("Ada Lovelace" in w for w in said(plugin, "NO HAND-IN"))
    assert any("canvas_9100" in w and "not on roster" in w for w in said(plugin, "NOT IN THE FILE"))
    late = lateness(out)
    assert late[("Dropped Person", "01_devices")]["in file"] == "no"
    assert late[("Ada Lovelace", "01_devices")]["status"] == "no hand-in"
    # lateness is Canvas's flag only: yes/no, no minutes invented, said once
    assert (late[("José Müller", "01_devices")]["late"], late[("José Müller", "01_devices")]["minutes_late"]) == \
        ("yes", "")
    assert late[("小明 王", "01_devices")]["late"] == "no"          # the roster's name: "王, 小明" in Canvas
    assert len([w for w in plugin.warnings if "late flag only" in w]) == 1


def test_canvas_export_from_the_download_alone_uses_the_user_id(canvas_course, tmp_path):
    out = tmp_path / "c.csv"
    export(CanvasExport, canvas_course, out)
    canvas_people = roster.read(canvas_roster(tmp_path))
    with pytest.raises(Rejected, match="9100"):          # the dropped student is in no Canvas roster
        canvas_import(out, canvas_people)
    rows = list(csv.reader(open(out, encoding="utf-8")))
    assert [r[1] for r in rows[2:]] == ["9001", "9002", "9100"]


def test_a_gradescope_sid_never_goes_in_canvas_id(tmp_path):
    # lms-formats.md, Gradescope: ":submitters: (list of :name:, :sid:, :email:)"; Canvas: "An institution's student
    # number belongs in SIS User ID, never in ID". Ada's SID is her SIS User ID (S1003) in the Canvas roster.
    rows = [hand_in("gradescope_S1003", "gradescope", "S1003", "Ada Lovelace", email="ada@uni.example",
                    submitted_at="2026-01-05T11:00:00+00:00", time_source="Gradescope created_at")]
    course = make_course(tmp_path / "course", {"gradescope_S1003": (5, 5)}, rows)
    out = tmp_path / "c.csv"
    plugin = export(CanvasExport, course, out)
    assert list(csv.reader(open(out)))[2:] == []           # no Canvas id without a roster: named, not guessed
    assert said(plugin, "NOT IN THE FILE: gradescope_S1003")
    export(CanvasExport, course, out, roster=str(canvas_roster(tmp_path)))
    result = canvas_import(out, roster.read(tmp_path / "canvas_gradebook.csv"))
    assert result.how["9003"] == "ID" and result.grades["9003"]["02_transfers"] == "5"
    assert list(csv.reader(open(out)))[2][:4] == ["Lovelace, Ada", "9003", "S1003", "alovelace"]


def test_canvas_validator_refuses_an_sid_in_id_and_a_missing_section(tmp_path):
    people = roster.read(canvas_roster(tmp_path))
    bad = write(tmp_path / "bad.csv", "Student,ID,SIS User ID,SIS Login ID,Section,01_devices\n"
                                      "\"Lovelace, Ada\",S1003,,,,5\n")
    with pytest.raises(Rejected, match="no Canvas user id"):
        canvas_import(bad, people)
    with pytest.raises(Rejected, match="Section"):
        canvas_import(write(tmp_path / "b2.csv", "Student,ID,01_devices\n\"Lovelace, Ada\",9003,5\n"), people)
    with pytest.raises(Rejected, match="more than"):
        canvas_import(write(tmp_path / "b3.csv", "Student,ID,Section,01_devices\nPoints Possible,,,5\n"
                                                 "\"Lovelace, Ada\",9003,,7\n"), people)


# ---------------------------------------------------------------------------------------------
# Moodle

def moodle_course(tmp_path, **ids) -> Path:
    # lms-formats.md, Moodle: "<full name>_<participant id>"; "Two students with the same full name differ only by
    # the participant id"; "Zip entry times: the stored file's time". A download gives no user field.
    rows = [hand_in("moodle_501", "moodle", "501", "Ada Lovelace", submitted_at="2026-01-05T10:00:00+00:00",
                    time_source="Moodle file time"),
            hand_in("moodle_502", "moodle", "502", "Ada Lovelace", submitted_at="2026-01-05T13:30:00+00:00",
                    time_source="Moodle file time"),
            hand_in("moodle_503", "moodle", "503", "Seán OBrien", submitted_at="2026-01-05T12:45:00+00:00",
                    time_source="Moodle file time", **ids)]
    return make_course(tmp_path / "course", {"moodle_501": (5, None), "moodle_502": (3, None),
                                             "moodle_503": (4, 2)}, rows)


def test_moodle_export_from_a_download_alone_is_refused_and_says_what_to_export(tmp_path):
    course = moodle_course(tmp_path)
    out = tmp_path / "m.csv"
    with pytest.raises(ExportRefused, match="Grades > Export") as error:
        export(MoodleExport, course, out)
    assert "participant id" in str(error.value) and not out.exists()
    assert cli.main(["export", str(course), "--lms", "moodle", "--out", str(out)]) == 2 and not out.exists()


def test_moodle_export_with_the_roster_imports_and_names_what_it_cannot(tmp_path, capsys):
    course = moodle_course(tmp_path)
    out = tmp_path / "m.csv"
    plugin = export(MoodleExport, course, out, roster=str(moodle_grades(tmp_path)), due="2026-01-05T12:00")
    people = roster.read(tmp_path / "moodle_grades.csv")
    header = next(csv.reader(open(out, encoding="utf-8")))
    assert header[0] == "Email address"
    result = moodle_import(out, people, "Email address", "email", list(NOTEBOOKS))
    assert result.grades == {"sean@uni.example": {"01_devices": "4", "02_transfers": "2"}}
    # the two Ada Lovelaces: one name, two people in the roster: named, never guessed, left out
    left_out = said(plugin, "NOT IN THE FILE")
    assert {w.split(" ")[4] for w in left_out if w.startswith("NOT IN THE FILE: moodle_")} == {"moodle_501",
                                                                                               "moodle_502"}
    assert sum(w.startswith("NOT IN THE FILE: Ada Lovelace (id_number") for w in left_out) == 2  # the roster's two
    rows = {r[0]: r for r in csv.reader(open(out, encoding="utf-8"))}
    assert rows["sean@uni.example"][header.index("01_devices minutes late")] == "45"
    assert rows["sean@uni.example"][header.index("Status")] == "on roster"


def test_moodle_export_joins_on_the_ids_collect_put_in_the_manifest(tmp_path):
    course = moodle_course(tmp_path, id_number="20233")            # collect --roster filled it
    out = tmp_path / "m.csv"
    export(MoodleExport, course, out, roster=str(moodle_grades(tmp_path)))
    people = roster.read(tmp_path / "moodle_grades.csv")
    assert moodle_import(out, people, "Email address", "email", list(NOTEBOOKS)).how == {"sean@uni.example": "email"}


def test_moodle_validator_aborts_on_a_blank_or_unknown_user(tmp_path):
    people = roster.read(moodle_grades(tmp_path))
    blank = write(tmp_path / "blank.csv", "Email address,01_devices\nsean@uni.example,4\n,5\n")
    with pytest.raises(Rejected, match="line 3: user '' not found"):
        moodle_import(blank, people, "Email address", "email", ["01_devices"])
    slug = write(tmp_path / "slug.csv", "Username,Email address,01_devices\nsean_obrien,,4\n")   # the old export
    with pytest.raises(Rejected, match="abort whole import"):
        moodle_import(slug, people, "Username", "username", ["01_devices"])


# ---------------------------------------------------------------------------------------------
# Blackboard

def blackboard_roster(tmp_path) -> Path:
    # lms-formats.md, Blackboard, "Grade Center upload: CSV or tab-delimited with Last Name, First Name, Username,
    # and item columns <Name> [Total Pts: N] |<column id>"; the download is tab-separated UTF-16 LE with a BOM.
    text = ("Last Name\tFirst Name\tUsername\tStudent ID\tLast Access\tAvailability\t"
            "01_devices [Total Pts: 5 Score] |777001\n"
            "Lovelace\tAda\t20123456\tS1003\t2026-01-05\tAvailable\t\n"
            "Müller\tJosé\tjmuller\tS1001\t2026-01-05\tAvailable\t\n"
            "Hopper\tGrace\tghopper\tS1004\t2026-01-05\tAvailable\t\n")
    return write(tmp_path / "gc_COURSE_fullgc_2026-01-06-10-00-00.xls", "\ufeff" + text, "utf-16-le")


@pytest.fixture
def blackboard_course(tmp_path):
    # lms-formats.md, Blackboard: "<Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<original name>"; "the
    # stamp is the submission time"; usernames may be numeric.
    rows = [hand_in("blackboard_20123456", "blackboard", "20123456", "Ada Lovelace",
                    submitted_at="2026-01-05T11:59:00+00:00", time_source="Blackboard attempt stamp"),
            hand_in("blackboard_jmuller", "blackboard", "jmuller", "José Müller",
                    submitted_at="2026-01-05T14:00:00+00:00", time_source="Blackboard attempt stamp")]
    return make_course(tmp_path / "course", {"blackboard_20123456": (5, 4), "blackboard_jmuller": (3, None)}, rows)


def test_blackboard_export_keys_on_username_and_reuses_the_column_id(blackboard_course, tmp_path):
    out = tmp_path / "bb.csv"
    plugin = export(BlackboardExport, blackboard_course, out, roster=str(blackboard_roster(tmp_path)),
                    due="2026-01-05T12:00")
    result = blackboard_import(out, roster.read(tmp_path / "gc_COURSE_fullgc_2026-01-06-10-00-00.xls"))
    assert result.items == {"01_devices [Total Pts: 5] |777001": "5", "02_transfers [Total Pts: 5]": "5"}
    assert result.new_items == ["02_transfers [Total Pts: 5]"]
    assert any("no column id for 02_transfers" in w for w in plugin.warnings)
    assert result.grades["20123456"] == {"01_devices [Total Pts: 5] |777001": "5", "02_transfers [Total Pts: 5]": "4"}
    assert result.grades["ghopper"] == {"01_devices [Total Pts: 5] |777001": "", "02_transfers [Total Pts: 5]": ""}
    assert any("Grace Hopper" in w for w in said(plugin, "NO HAND-IN"))
    late = lateness(out)
    assert late[("José Müller", "01_devices")]["minutes_late"] == "120"
    assert late[("Ada Lovelace", "01_devices")]["minutes_late"] == "0"


def test_blackboard_column_ids_given_on_the_command_line(blackboard_course, tmp_path, capsys):
    out = tmp_path / "bb.csv"
    assert cli.main(["export", str(blackboard_course), "--lms", "blackboard", "--column-id", "01_devices=5",
                     "--column-id", "02_transfers=6", "--out", str(out)]) == 0
    assert next(csv.reader(open(out, encoding="utf-8")))[3:] == ["01_devices [Total Pts: 5] |5",
                                                                 "02_transfers [Total Pts: 5] |6"]
    assert cli.main(["export", str(blackboard_course), "--lms", "blackboard", "--column-id", "01_devices",
                     "--out", str(out)]) == 2


def test_blackboard_validator_refuses_a_file_without_usernames_or_with_bare_item_names(tmp_path):
    people = roster.read(blackboard_roster(tmp_path))
    with pytest.raises(Rejected, match="Username"):
        blackboard_import(write(tmp_path / "a.csv", "Last Name,First Name,Email,01_devices [Total Pts: 5] |1\n"
                                                    "Lovelace,Ada,ada@x,5\n"), people)
    with pytest.raises(Rejected, match="neither"):
        blackboard_import(write(tmp_path / "b.csv", "Last Name,First Name,Username,01_devices\n"
                                                    "Lovelace,Ada,20123456,5\n"), people)
    with pytest.raises(Rejected, match="not in the course"):
        blackboard_import(write(tmp_path / "c.csv", "Last Name,First Name,Username,01_devices [Total Pts: 5]\n"
                                                    "Lovelace,Ada,ada_lovelace,5\n"), people)


# ---------------------------------------------------------------------------------------------
# Brightspace

@pytest.fixture
def brightspace_course(tmp_path):
    # lms-formats.md, Brightspace: "<id>-<id> - <First Last> - <Mon D, YYYY HMM AM>/<file>"; "the date is the
    # submission time". The folder's ids are not the OrgDefinedId: the roster gives that.
    rows = [hand_in("brightspace_88-1", "brightspace", "88-1", "José Müller",
                    submitted_at="2026-01-05T11:00:00+00:00", time_source="Brightspace folder date"),
            hand_in("brightspace_88-2", "brightspace", "88-2", "Ada Lovelace",
                    submitted_at="2026-01-05T12:30:00+00:00", time_source="Brightspace folder date")]
    return make_course(tmp_path / "course", {"brightspace_88-1": (5, 5), "brightspace_88-2": (2, None)}, rows)


def test_brightspace_export_with_org_defined_id_and_end_of_line(brightspace_course, tmp_path):
    out = tmp_path / "d2l.csv"
    plugin = export(BrightspaceExport, brightspace_course, out, roster=str(brightspace_export(tmp_path)))
    assert any("out of 10 points, the notebook out of 5" in w for w in plugin.warnings)
    result = brightspace_import(out, roster.read(tmp_path / "brightspace_grades.csv"))
    item = "01_devices Points Grade <Numeric MaxPoints:10>"     # the roster's own item column
    assert result.items == {item: "10", "02_transfers Points Grade <Numeric MaxPoints:5>": "5"}
    assert result.how == {"1001": "OrgDefinedId", "1002": "OrgDefinedId"}
    assert result.grades["1002"][item] == "2"
    assert list(csv.reader(open(out)))[1][0] == "#1001"


def test_brightspace_without_any_id_is_refused(brightspace_course, tmp_path):
    with pytest.raises(ExportRefused, match="OrgDefinedId"):
        export(BrightspaceExport, brightspace_course, tmp_path / "d.csv")


def test_brightspace_validator_refuses_a_file_without_end_of_line_or_ids(tmp_path):
    people = roster.read(brightspace_export(tmp_path))
    with pytest.raises(Rejected, match="End-of-Line"):
        brightspace_import(write(tmp_path / "a.csv", "OrgDefinedId,01_devices Points Grade <Numeric MaxPoints:5>\n"
                                                     "#1001,5\n"), people)
    with pytest.raises(Rejected, match="not in the course"):
        brightspace_import(write(tmp_path / "b.csv", "OrgDefinedId,01_devices Points Grade <Numeric MaxPoints:5>,"
                                                     "End-of-Line Indicator\n#,5,#\n"), people)
    with pytest.raises(Rejected, match="Points Grade"):
        brightspace_import(write(tmp_path / "c.csv", "OrgDefinedId,01_devices,End-of-Line Indicator\n#1001,5,#\n"),
                           people)


# ---------------------------------------------------------------------------------------------
# Generic

def test_generic_export_holds_everyone_with_a_status(canvas_course, tmp_path):
    out = tmp_path / "g.csv"
    plugin = export(LmsExport, canvas_course, out, roster=str(canvas_roster(tmp_path)))
    rows = generic_import(out, list(NOTEBOOKS))
    status = {key: r[-1] for key, r in rows.items()}
    assert status == {"canvas_9001": "on roster", "canvas_9002": "on roster", "canvas_9100": "not on roster",
                      "Ada Lovelace": "no hand-in", "Test Student": "no hand-in"}
    assert rows["canvas_9001"][3] == "9001"
    assert said(plugin, "NOT ON ROSTER: canvas_9100")
    with pytest.raises(Rejected, match="Total"):
        generic_import(write(tmp_path / "bad.csv", "Student ID,Name,Email,LMS ID,01_devices,02_transfers,Total,"
                                                   "Status\ns1,A,,,1,2,4,on roster\n"), list(NOTEBOOKS))


def test_a_roster_no_lms_wrote_stops_the_export_with_the_columns_expected(canvas_course, tmp_path, capsys):
    bad = write(tmp_path / "class.csv", "Vorname,Nachname\nAda,Lovelace\n")
    out = tmp_path / "c.csv"
    assert cli.main(["export", str(canvas_course), "--lms", "canvas", "--roster", str(bad), "--out", str(out)]) == 2
    said_out = capsys.readouterr().out
    assert "class.csv" in said_out and "'Vorname'" in said_out and "SIS Login ID" in said_out and not out.exists()
    assert cli.main(["export", str(canvas_course), "--lms", "canvas", "--column-id", "01_devices=5",
                     "--out", str(out)]) == 2 and not out.exists()


def test_an_id_the_roster_lacks_is_never_joined_to_a_namesake(tmp_path):
    # lms-formats.md, Canvas: "File name: <sortable name>[_LATE]_<user id>_…": two Ada Lovelaces, told apart by the
    # user id; the Canvas roster lists only one of them (9003): the other's grade must not go to her.
    rows = [hand_in("canvas_9003", "canvas", "9003", "lovelaceada"), hand_in("canvas_9300", "canvas", "9300",
                                                                             "lovelaceada")]
    course = make_course(tmp_path / "course", {"canvas_9003": (1, None), "canvas_9300": (5, None)}, rows)
    out = tmp_path / "c.csv"
    plugin = export(CanvasExport, course, out, roster=str(canvas_roster(tmp_path)))
    result = canvas_import(out, roster.read(tmp_path / "canvas_gradebook.csv"))
    assert result.grades["9003"]["01_devices (4411)"] == "1"
    assert any("canvas_9300" in w and "canvas_user_id 9300 is not in" in w for w in said(plugin, "NOT IN THE FILE"))
