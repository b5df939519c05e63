"""``python -m graders collect``: every LMS layout, zipped and not, into nbgrader's submitted/.

The downloads are built in ``tests/helpers/lms`` the way each LMS builds them. A download graded by real
nbgrader: tests/e2e/intake/test_collect_e2e.py.
"""

from __future__ import annotations

import csv
import datetime
import os
import shutil
from pathlib import Path

import pytest

from graders.__main__ import main
from graders.grading.autograde import NothingToGrade, students_in
from graders.intake import student_files as intake
from graders.intake.collect import MANIFEST, REPORT, collect
from tests.helpers import lms
from tests.helpers.tables import csv_rows

NB = lms.NB
CASES = [(name, zipped) for name in lms.BUILDERS for zipped in (False, True)]


def _submitted(course: Path) -> dict[tuple[str, str], bytes]:
    return {(p.parts[-3], p.parts[-2]): p.read_bytes() for p in (course / "submitted").glob("*/*/*.ipynb")}


def _snapshot(course: Path) -> dict[str, tuple[bytes, float]]:
    return {str(p.relative_to(course)): (p.read_bytes(), p.stat().st_mtime)
            for p in course.rglob("*") if p.is_file() and p.name != REPORT}


@pytest.mark.parametrize("name,zipped", CASES, ids=[f"{n}-{'zip' if z else 'folder'}" for n, z in CASES])
def test_each_layout_files_one_entry_per_student_and_notebook(tmp_path, name, zipped):
    download = lms.BUILDERS[name](tmp_path / "dl", zipped)
    course = tmp_path / "course"
    result = collect(download.path, course, names=[NB], echo=lambda *_: None)
    assert _submitted(course) == download.expected
    manifest = {(r["student_id"], r["notebook"]): r for r in csv_rows(course / MANIFEST)}
    for sid, nb in download.expected:
        folder = course / "submitted" / sid / nb
        when = manifest[(sid, nb)]["submitted_at"]
        # timestamp.txt exactly when the LMS records a time (Canvas records none): nbgrader's late penalty reads it
        assert sorted(p.name for p in folder.iterdir()) == [f"{nb}.ipynb"] + (["timestamp.txt"] if when else [])
        if when:
            from nbgrader.utils import parse_utc  # the timestamp is one nbgrader reads, and the manifest's time
            stamp = parse_utc((folder / "timestamp.txt").read_text().strip())
            assert stamp.replace(tzinfo=datetime.UTC) == datetime.datetime.fromisoformat(when)
    report = csv_rows(course / REPORT)
    assert all(r["reason"] for r in report)
    for part in download.reported:
        assert any(part in r["file"] for r in report), f"{part} is not in the report: {report}"
    filed_sources = {f.source.split(" (")[0] for f in result.filed}
    assert not filed_sources & {r["file"] for r in report}  # a file is filed or reported, never both
    assert set(manifest) == set(download.expected)
    with open(course / MANIFEST, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert len(header) == len(set(header)), header  # one column per name (the export reads them by name)
    for key, columns in download.manifest.items():
        for column, value in columns.items():
            assert manifest[key][column] == value, (key, column)


@pytest.mark.parametrize("name,zipped", CASES, ids=[f"{n}-{'zip' if z else 'folder'}" for n, z in CASES])
def test_a_second_collect_of_the_same_download_changes_nothing(tmp_path, name, zipped):
    download = lms.BUILDERS[name](tmp_path / "dl", zipped)
    course = tmp_path / "course"
    collect(download.path, course, names=[NB], echo=lambda *_: None)
    before = _snapshot(course)
    again = collect(download.path, course, names=[NB], echo=lambda *_: None)
    assert _snapshot(course) == before
    assert {f.status for f in again.filed} == {"unchanged"}


def test_a_newer_download_updates_and_adds_and_keeps_the_rest(tmp_path):
    course = tmp_path / "course"
    collect(lms.canvas(tmp_path / "first", zipped=True).path, course, names=[NB], echo=lambda *_: None)
    # lms-formats.md, Canvas: a later upload gets a later (higher) attachment id; every entry the zip's build time
    later = lms.write({
        "smithbob_340934_408490999_01_devices.ipynb": (lms.mistakes(), lms.BUILT),
        "hoppergrace_LATE_350020_408491000_01_devices (2).ipynb": (lms.correct(), lms.BUILT),
    }, tmp_path / "second", "submissions.zip")
    result = collect(later, course, names=[NB], echo=lambda *_: None)
    assert {(f.student_id, f.status) for f in result.filed} == {("canvas_340934", "updated"),
                                                                 ("canvas_350020", "added")}
    got = _submitted(course)
    assert got[("canvas_340934", NB)] == lms.mistakes() and got[("canvas_350020", NB)] == lms.correct()
    assert got[("canvas_334244", NB)] == lms.untouched()  # not in the second download: still there
    manifest = {r["student_id"]: r for r in csv_rows(course / MANIFEST)}
    assert manifest["canvas_340934"]["submission_id"] == "408490999" and manifest["canvas_350020"]["late"] == "true"


def test_an_older_download_never_replaces_a_newer_one(tmp_path):
    course = tmp_path / "course"
    # the newer Canvas download holds a later upload (a higher attachment id); its zip was built later too
    later = lms.BUILT + datetime.timedelta(days=3)
    newer = lms.write({"smithbob_340934_608490284_01_devices.ipynb": (lms.mistakes(), later)},
                      tmp_path / "new", "submissions.zip")
    collect(newer, course, names=[NB], echo=lambda *_: None)
    collect(lms.canvas(tmp_path / "old", zipped=True).path, course, names=[NB], echo=lambda *_: None)
    assert _submitted(course)[("canvas_340934", NB)] == lms.mistakes()
    assert any("not newer" in r["reason"] and r["student"] == "canvas_340934" for r in csv_rows(course / REPORT))


def test_an_older_blackboard_attempt_never_replaces_a_newer_one(tmp_path):
    course = tmp_path / "course"
    full = lms.blackboard(tmp_path / "all", zipped=True)
    collect(full.path, course, names=[NB], echo=lambda *_: None)
    # lms-formats.md, Blackboard: "each with its own stamp: the stamp is the submission time"
    older = lms.write({"Assignment_1_20123456_attempt_2026-01-05-14-00-00_01_devices.ipynb":
                       (lms.untouched(), lms.BUILT)}, tmp_path / "old", "gradebook_GPU101_A1_2026-01-12-09-00-00.zip")
    collect(older, course, names=[NB], echo=lambda *_: None)
    assert _submitted(course)[("blackboard_20123456", NB)] == lms.correct()
    assert any("not newer" in r["reason"] for r in csv_rows(course / REPORT))


def test_a_file_collect_did_not_write_is_left_alone(tmp_path):
    course = tmp_path / "course"
    mine = course / "submitted" / "canvas_340934" / NB / f"{NB}.ipynb"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"graded by hand")
    collect(lms.canvas(tmp_path / "dl", zipped=True).path, course, names=[NB], echo=lambda *_: None)
    assert mine.read_bytes() == b"graded by hand" and not (mine.parent / "timestamp.txt").exists()
    assert any("not written by collect" in r["reason"] for r in csv_rows(course / REPORT))


def test_equal_times_say_which_version_won_and_why(tmp_path):
    lines = []
    collect(lms.folders(tmp_path / "dl", zipped=False).path, tmp_path / "course", names=[NB], echo=lines.append)
    said = "\n".join(lines)
    assert "bob/01_devices (1).ipynb [bob]: another version of 01_devices was filed, 'bob/01_devices.ipynb': " \
           "same time as the others; it has the released name 01_devices.ipynb" in said
    report = {r["file"]: r["reason"] for r in csv_rows(tmp_path / "course" / REPORT)}
    assert "it has the released name" in report["bob/01_devices (1).ipynb"]


def test_choose_says_why_in_autogrades_intake_too(tmp_path):
    exact, copy = tmp_path / f"{NB}.ipynb", tmp_path / f"{NB} (1).ipynb"
    for p in (exact, copy):
        p.write_text("{}")
        os.utime(p, (1e9, 1e9))
    pick, notes = intake.choose([exact, copy], NB)
    assert pick == exact and "same time" in notes[0] and "released name" in notes[0]


def test_two_people_with_one_name_get_two_ids_that_stay(tmp_path):
    # lms-formats.md, Canvas: "<sortable name>[_LATE]_<user id>_<attachment id>_<display name>": two Bob Smiths
    files = {"smithbob_1_10_01_devices.ipynb": (lms.correct(), lms.BUILT),
             "smithbob_2_20_01_devices.ipynb": (lms.untouched(), lms.BUILT)}
    download = lms.write(files, tmp_path / "dl", "submissions.zip")
    collect(download, tmp_path / "course", names=[NB], echo=lambda *_: None)
    assert _submitted(tmp_path / "course") == {("canvas_1", NB): lms.correct(), ("canvas_2", NB): lms.untouched()}
    again = collect(download, tmp_path / "course", names=[NB], echo=lambda *_: None)
    assert {f.student_id for f in again.filed} == {"canvas_1", "canvas_2"}


def test_an_id_taken_by_another_person_earlier_gets_a_suffix_and_keeps_it(tmp_path):
    """Two LMS keys that make one folder name (ids differing only by case, on a Mac's disk) stay two students."""
    course = tmp_path / "course"
    # lms-formats.md, Canvas: "anon_<5 base58 chars>_<attachment id>_<file>": base58 ids are case-sensitive
    files = {"anon_4Xk9P_1_01_devices.ipynb": (lms.correct(), lms.BUILT),
             "anon_4xk9P_2_01_devices.ipynb": (lms.untouched(), lms.BUILT)}
    download = lms.write(files, tmp_path / "dl", "submissions.zip")
    collect(download, course, names=[NB], echo=lambda *_: None)
    assert _submitted(course) == {("canvas_anon_4Xk9P", NB): lms.correct(), ("canvas_anon_4xk9P_2", NB):
                                  lms.untouched()}
    again = collect(download, course, names=[NB], echo=lambda *_: None)
    assert {f.status for f in again.filed} == {"unchanged"}


def test_a_folder_of_downloads_is_read_download_by_download(tmp_path):
    """Eight Moodle zips, one per notebook, saved into one folder: each is read as its own download."""
    lms.moodle(tmp_path / "downloads", zipped=True)
    shutil.copy(lms.canvas(tmp_path / "c", zipped=True).path, tmp_path / "downloads" / "canvas.zip")
    result = collect(tmp_path / "downloads", tmp_path / "course", names=[NB], echo=lambda *_: None)
    assert {f.hand_in.lms for f in result.filed} == {"Moodle", "Canvas"}
    assert len(result.filed) == 7 + 8


@pytest.mark.parametrize("make", ["empty", "loose-notebooks", "not-a-zip", "broken-zip"])
def test_a_download_with_nothing_to_file_exits_nonzero_and_says_what_it_looked_for(tmp_path, capsys, make):
    path = tmp_path / "download"
    if make == "empty":
        path.mkdir()
    elif make == "loose-notebooks":  # one student's files, no student folder around them
        path.mkdir()
        (path / f"{NB}.ipynb").write_bytes(lms.correct())
    elif make == "not-a-zip":
        path = tmp_path / "grades.csv"
        path.write_text("a,b\n")
    else:
        path = tmp_path / "submissions.zip"
        path.write_bytes(b"PK\x03\x04 truncated")
    assert main(["collect", str(path), "--course", str(tmp_path / "course"), "--notebooks", NB]) == 1
    said = capsys.readouterr().out
    assert "Canvas" in said and "Moodle" in said and "Blackboard" in said and "per-student folders" in said
    if make == "loose-notebooks":  # files in a layout no LMS has: refused, and each one listed
        assert "refused 1 file(s)" in said
        assert [r["file"] for r in csv_rows(tmp_path / "course" / REPORT)] == [f"{NB}.ipynb"]
    else:
        assert "nothing filed" in said


def test_the_command_files_a_canvas_zip(tmp_path, capsys):
    download = lms.canvas(tmp_path / "dl", zipped=True)
    assert main(["collect", str(download.path), "--course", str(tmp_path / "course"), "--notebooks", NB]) == 0
    out = capsys.readouterr().out
    assert "LATE" in out and f"not filed: {lms.CANVAS_ZIP}:notes from class.ipynb" in out


def test_names_that_only_look_like_an_lms_pattern_are_not_read_as_students():
    from graders.intake.lms import canvas, classroom
    assert classroom._owner("01_devices - Copy.ipynb", [NB]) is None  # Windows' copy, not a student "01_devices"
    assert classroom._owner("Ada Lovelace - Copy of 01_devices.ipynb", [NB]) == ("Ada Lovelace",
                                                                                 "Copy of 01_devices.ipynb")
    assert canvas.CanvasCollector().parse("notes_2024_final.ipynb") is None  # no two numeric ids


def test_moodle_blind_marking_and_groups(tmp_path):
    files = {"Participant_1001_assignsubmission_file_/01_devices.ipynb": (lms.correct(), lms.minutes(0)),
             "Team A-Bob Smith_1002_assignsubmission_file_/01_devices.ipynb": (lms.untouched(), lms.minutes(0))}
    result = collect(lms.write(files, tmp_path / "dl", "moodle.zip"), tmp_path / "course", names=[NB],
                     echo=lambda *_: None)
    assert {(f.student_id, f.hand_in.group, f.hand_in.name) for f in result.filed} == {
        ("moodle_1001", "", ""), ("moodle_1002", "", "Team A-Bob Smith")}  # no Default group-: not a group download


# -- autograde: the course's submitted/, and a clear refusal of what it cannot grade ---------------------
@pytest.mark.parametrize("name", ["canvas", "moodle", "classroom", "gradescope", "blackboard", "brightspace",
                                  "brightspace-flat"])
@pytest.mark.parametrize("zipped", [False, True], ids=["folder", "zip"])
def test_autograde_refuses_an_lms_download(tmp_path, name, zipped, capsys):
    download = lms.BUILDERS[name](tmp_path / "dl", zipped)
    with pytest.raises(NothingToGrade, match="graders collect"):
        students_in(download.path)
    assert main(["autograde", str(download.path), "--out", str(tmp_path / "out"), "--notebooks", NB]) == 2
    assert "collect" in capsys.readouterr().out
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_autograde_refuses_a_folder_one_level_above_the_students(tmp_path):
    download = lms.folders(tmp_path / "dl", zipped=False)
    (download.path / "stray.ipynb").unlink()
    with pytest.raises(NothingToGrade, match="pass .*download"):
        students_in(download.path.parent)
    assert [f.name for f in students_in(download.path)] == ["alice", "bob", "carol"]


def test_autograde_refuses_a_folder_without_notebooks(tmp_path):
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    (tmp_path / "subs" / "alice" / "report.pdf").write_bytes(b"%PDF")
    with pytest.raises(NothingToGrade, match="nothing to grade"):
        students_in(tmp_path / "subs")


def test_autograde_reads_the_courses_submitted_layout(tmp_path):
    course = tmp_path / "course"
    collect(lms.canvas(tmp_path / "dl", zipped=True).path, course, names=[NB], echo=lambda *_: None)
    for given in (course, course / "submitted"):
        folders = students_in(given)
        assert [f.name for f in folders] == sorted(sid for sid, _ in lms.canvas(tmp_path / "again", False).expected)
    item = intake.intake_student(course / "submitted" / "canvas_340934", [NB])[NB]
    assert item.problem is None and item.path.read_bytes() == lms.correct()


def test_a_course_an_older_collect_timed_by_canvas_zip_entries_is_corrected(tmp_path):
    """Before, every Canvas entry's zip time (the build moment: lms-formats.md, Canvas) became submitted_at and
    timestamp.txt; collecting the same download again drops both, so nbgrader's late penalty no longer reads it."""
    download = lms.canvas_three(tmp_path / "dl", zipped=True)
    course = tmp_path / "course"
    collect(download.path, course, names=[NB], echo=lambda *_: None)
    rows = csv_rows(course / MANIFEST)
    stamp = course / "submitted" / "canvas_340934" / NB / "timestamp.txt"
    stamp.write_text("2026-01-12 08:15:00.000000 UTC\n")  # what the old collect wrote
    for r in rows:
        r.update(submitted_at="2026-01-12T08:15:00+00:00", time_source="")
    with open(course / MANIFEST, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    again = collect(download.path, course, names=[NB], echo=lambda *_: None)
    assert {f.status for f in again.filed} == {"updated"}
    assert not stamp.exists()
    assert {r["submitted_at"] for r in csv_rows(course / MANIFEST)} == {""}
    assert _submitted(course) == download.expected
