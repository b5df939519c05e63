"""Download -> ``collect --roster`` -> gradebook -> ``export --roster`` -> that LMS's importer, per LMS.

The downloads are tests/helpers/lms's (the intake's fixtures, built from lms-formats.md's rules); ``collect``
files them and writes ``collect_manifest.csv``. Grading is replaced by gradebook rows written with nbgrader's
API, as tests/unit/export/test_lms_export.py does, one score per student that the import must carry to the
right person. The rosters are each LMS's own export, built from lms-formats.md's rules (cited at each).
"""

from __future__ import annotations

import csv
from pathlib import Path

from graders import __main__ as cli
from graders.intake import roster
from tests.helpers import lms
from tests.helpers.gradebooks import make_course
from tests.helpers.importers import blackboard_import, brightspace_import, canvas_import, moodle_import
from tests.helpers.rosters import write

NB = lms.NB


def collected(tmp_path: Path, builder, roster_file: Path) -> tuple[Path, dict[str, float]]:
    """The download collected with the roster, and a gradebook giving student i the score i % 6."""
    download = builder(tmp_path / "download", zipped=True)
    course = tmp_path / "course"
    assert cli.main(["collect", str(download.path), "--course", str(course), "--notebooks", NB,
                     "--roster", str(roster_file)]) == 0
    with open(course / "collect_manifest.csv", newline="", encoding="utf-8") as f:
        students = sorted({r["student_id"] for r in csv.DictReader(f)})
    scores = {sid: float(i % 6) for i, sid in enumerate(students)}
    make_course(course, {sid: (score,) for sid, score in scores.items()}, None, notebooks=(NB,))
    return course, scores


def manifest_ids(course: Path, column: str) -> dict[str, str]:
    with open(course / "collect_manifest.csv", newline="", encoding="utf-8") as f:
        return {r["student_id"]: r[column] for r in csv.DictReader(f)}


def run_export(course, lms_name, roster_file, out, capsys) -> str:
    capsys.readouterr()
    assert cli.main(["export", str(course), "--lms", lms_name, "--roster", str(roster_file), "--out", str(out)]) == 0
    return capsys.readouterr().out


def test_canvas_download_to_canvas_import(tmp_path, capsys):
    # lms-formats.md, Canvas, Gradebook CSV import: "column 0 contains Student, column 1 contains ID; then optionally
    # SIS User ID, SIS Login ID …; the last identity column contains Section", "Title (assignment id)", the
    # "Points Possible" row with four leading spaces. The ids are those of tests/helpers/lms.canvas's download.
    people = [("Smith, Bob", 340934), ("Smith, Bob", 340935), ("Lovelace, Ada", 334244), ("Turing, Alan", 330001),
              ("Müller, José", 350001), ("Muller, Jose", 350002), ("王, 小明", 350003), ("Hopper, Grace", 350010),
              ("Noether, Emmy", 360000)]
    text = "Student,ID,SIS User ID,SIS Login ID,Section,01_devices (7001),Final Score\n    Points Possible,,,,,5,\n"
    text += "".join(f'"{n}",{i},S{i},u{i},Section A,,\n' for n, i in people)
    roster_file = write(tmp_path / "2026-01-12T0815_Grades-GPU101.csv", text)
    course, scores = collected(tmp_path, lms.canvas, roster_file)
    out = tmp_path / "grades_canvas.csv"
    said_out = run_export(course, "canvas", roster_file, out, capsys)
    result = canvas_import(out, roster.read(roster_file))
    ids = manifest_ids(course, "canvas_user_id")
    assert {key: float(g["01_devices (7001)"]) for key, g in result.grades.items() if key != "360000"} == \
        {ids[sid]: score for sid, score in scores.items()}
    assert set(result.how.values()) == {"ID"} and result.new_items == []
    assert "NO HAND-IN: Emmy Noether" in said_out and "late flag only" in said_out
    with open(tmp_path / "grades_canvas_lateness.csv", newline="", encoding="utf-8") as f:
        late = {r["ID"]: r for r in csv.DictReader(f)}
    assert (late["334244"]["late"], late["334244"]["minutes_late"]) == ("yes", "")   # lovelaceada_LATE_…


def test_moodle_download_to_moodle_import(tmp_path, capsys):
    # lms-formats.md, Moodle: "the instructor must supply a roster (Moodle's own grade export or participants list:
    # First name, Last name, ID number, Email address, …)"; names as tests/helpers/lms.moodle's download has them, two
    # Bob Smiths (told apart only by the participant id there) and Seán O'Brien with his apostrophe.
    people = [("Ada", "Lovelace"), ("Bob", "Smith"), ("Bob", "Smith"), ("José", "Müller"), ("Jose", "Muller"),
              ("Seán", "O'Brien"), ("Grace", "Hopper"), ("Emmy", "Noether")]
    text = "First name,Last name,ID number,Institution,Department,Email address\n"
    text += "".join(f"{f},{last},{100 + i},,,user{i}@uni.example\n" for i, (f, last) in enumerate(people))
    roster_file = write(tmp_path / "GPU101 Grades.csv", text)
    course, scores = collected(tmp_path, lms.moodle, roster_file)
    out = tmp_path / "grades_moodle.csv"
    said_out = run_export(course, "moodle", roster_file, out, capsys)
    header = next(csv.reader(open(out, encoding="utf-8")))
    column = header[0]
    field = {"Email address": "email", "ID number": "idnumber", "Username": "username"}[column]
    result = moodle_import(out, roster.read(roster_file), column, field, [NB])
    names = manifest_ids(course, "name")
    imported = {k: g[NB] for k, g in result.grades.items()}
    key = {"email": "email", "idnumber": "id_number", "username": "username"}[field]
    by_name = {m.name: m.ids[key] for m in roster.read(roster_file).members if m.name != "Bob Smith"}
    expected = {by_name[n.replace("OBrien", "O'Brien")]: f"{scores[sid]:g}" for sid, n in names.items()
                if n != "Bob Smith"}
    expected[by_name["Emmy Noether"]] = ""                        # on the roster, no hand-in: "No grade"
    assert imported == expected
    assert said_out.count("NOT IN THE FILE: moodle_100") == 2     # the two Bob Smiths: named, not guessed


def test_blackboard_download_to_blackboard_upload(tmp_path, capsys):
    # lms-formats.md, Blackboard, "Grade Center upload: CSV or tab-delimited with Last Name, First Name, Username,
    # and item columns <Name> [Total Pts: N] |<column id>; Username is the key"; the download is UTF-16 tab text.
    text = ("Last Name\tFirst Name\tUsername\tStudent ID\tLast Access\tAvailability\t"
            "01_devices [Total Pts: 5 Score] |5550001\n"
            "Lovelace\tAda\t20123456\t\t\tAvailable\t\nSmith\tJohn\tjsmith\t\t\tAvailable\t\n"
            "Smith\tJohn\tjsmith2\t\t\tAvailable\t\nMüller\tJosé\tmjose\t\t\tAvailable\t\n"
            "Noether\tEmmy\tenoether\t\t\tAvailable\t\n")
    roster_file = write(tmp_path / "gc_GPU101_fullgc_2026-01-12-08-15-00.xls", "\ufeff" + text, "utf-16-le")
    course, scores = collected(tmp_path, lms.blackboard, roster_file)
    out = tmp_path / "grades_blackboard.csv"
    said_out = run_export(course, "blackboard", roster_file, out, capsys)
    result = blackboard_import(out, roster.read(roster_file))
    item = "01_devices [Total Pts: 5] |5550001"
    users = manifest_ids(course, "username")
    assert {k: g[item] for k, g in result.grades.items()} == {
        **{users[sid]: f"{score:g}" for sid, score in scores.items()}, "enoether": ""}
    assert result.new_items == [] and "NO HAND-IN: Emmy Noether" in said_out


def test_brightspace_download_to_brightspace_import(tmp_path, capsys):
    # lms-formats.md, Brightspace, Grade import CSV: "an OrgDefinedId or Username column (exports prefix values with
    # #) …, and a last column End-of-Line Indicator holding #". The download's folder ids are not OrgDefinedIds:
    # the roster is joined on the name, and the two Bob Smiths cannot be told apart by it.
    text = ("OrgDefinedId,Username,Last Name,First Name,Email,01_devices Points Grade <Numeric MaxPoints:5>,"
            "End-of-Line Indicator\n#A1,#alovelace,Lovelace,Ada,a@x.example,,#\n#B1,#bsmith,Smith,Bob,b@x.example,,#\n"
            "#B2,#bsmith2,Smith,Bob,b2@x.example,,#\n#J1,#jmuller,Müller,José,j@x.example,,#\n"
            "#E1,#enoether,Noether,Emmy,e@x.example,,#\n")
    roster_file = write(tmp_path / "GPU101_GradesExport_2026-01-12-08-15.csv", text, "utf-8-sig")
    course, scores = collected(tmp_path, lms.brightspace, roster_file)
    out = tmp_path / "grades_brightspace.csv"
    said_out = run_export(course, "brightspace", roster_file, out, capsys)
    result = brightspace_import(out, roster.read(roster_file))
    item = "01_devices Points Grade <Numeric MaxPoints:5>"
    names = manifest_ids(course, "name")
    by_name = {n: sid for sid, n in names.items()}
    expected = {"A1": f"{scores[by_name['Ada Lovelace']]:g}", "J1": f"{scores[by_name['José Müller']]:g}",
                "E1": ""}
    assert {k: g[item] for k, g in result.grades.items()} == expected
    assert said_out.count("NOT IN THE FILE: brightspace_500") == 2 and "NO HAND-IN: Emmy Noether" in said_out

