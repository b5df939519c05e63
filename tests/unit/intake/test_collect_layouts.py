"""``collect``: which LMS a download is, and the rules only one LMS has (Blackboard, Brightspace, Canvas's
anonymous and re-upload names, Moodle's groups). Every download is built by ``tests/helpers/lms`` or here, citing the
rule of ``/work/shared/reference/lms-formats.md`` it follows. Fast: no notebook is run.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from graders.__main__ import main
from graders.intake.collect import MANIFEST, REPORT, collect
from graders.intake.lms import blackboard, brightspace, canvas, moodle
from tests.helpers import lms
from tests.helpers.tables import csv_rows

NB = lms.NB
QUIET = {"echo": lambda *_: None}



def _run(download: Path, course: Path):
    return collect(download, course, names=[NB], **QUIET)


@pytest.mark.parametrize("name,lms_name", [("blackboard", "Blackboard Learn"), ("brightspace", "D2L Brightspace"),
                                           ("brightspace-flat", "D2L Brightspace"), ("canvas", "Canvas"),
                                           ("moodle", "Moodle"), ("moodle-flat", "Moodle"),
                                           ("classroom", "Google Classroom"), ("gradescope", "Gradescope")])
def test_each_download_is_read_as_its_own_lms_only(tmp_path, name, lms_name):
    result = _run(lms.BUILDERS[name](tmp_path / "dl", True).path, tmp_path / "course")
    assert [layout.split(" (")[0] for layout in result.layouts] == [lms_name]
    assert {f.hand_in.lms for f in result.filed} == {lms_name}


def test_numeric_blackboard_usernames_are_not_read_as_canvas():
    # lms-formats.md, Blackboard: "the assignment part may itself contain _ and digits
    # (Assignment_1_20123456_attempt_…)"
    name = "Assignment_1_20123456_attempt_2026-01-05-14-00-00_01_devices.ipynb"
    assert blackboard.parse(name)["username"] == "20123456"
    assert blackboard.parse(name)["assignment"] == "Assignment_1"
    assert canvas.parse(name) is not None  # Canvas's own pattern alone would take it: the order decides
    # nbgrader's own zip_collect docs use this naming (lms-formats.md, Blackboard)
    assert blackboard.parse("ps1_hacker_attempt_2016-01-30-20-30-10_problem1.ipynb")["username"] == "hacker"


def test_blackboard_attempts_are_kept_apart_and_the_newest_is_filed(tmp_path):
    download = lms.blackboard(tmp_path / "dl", zipped=True)
    course = tmp_path / "course"
    _run(download.path, course)
    report = {r["file"].split(":", 1)[1]: r for r in csv_rows(course / REPORT)}
    older = report["Assignment_1_20123456_attempt_2026-01-05-14-00-00_01_devices.ipynb"]
    assert older["student"] == "blackboard_20123456" and "the newest attempt" in older["reason"]
    for stamp in ("2026-01-05-14-00-00", "2026-01-06-09-30-00"):  # each receipt read and accounted for
        assert "receipt" in report[f"Assignment_1_20123456_attempt_{stamp}.txt"]["reason"]
    manifest = {r["student_id"]: r for r in csv_rows(course / MANIFEST)}
    assert manifest["blackboard_20123456"]["submission_id"] == "attempt_2026-01-06-09-30-00"


def test_blackboard_receipt_gives_the_name_in_any_script(tmp_path):
    receipt = tmp_path / "r.txt"
    receipt.write_bytes("Nom : 王小明 (xwang)\nDate de remise : …\n".encode())  # localised labels
    assert blackboard.receipt_name(receipt, "XWANG") == "王小明"
    assert blackboard.receipt_name(receipt, "other") == ""


def test_brightspace_dates_and_the_persons_id(tmp_path):
    # lms-formats.md, Brightspace: "<Mon D, YYYY HMM AM>"
    assert brightspace.date_epoch("Jan 5, 2026 233 PM") == datetime.datetime(2026, 1, 5, 14, 33).timestamp()
    assert brightspace.date_epoch("Dec 31, 2025 1200 AM") == datetime.datetime(2025, 12, 31, 0, 0).timestamp()
    entries = [{"a": "7", "b": "101", "name": "Ada"}, {"a": "7", "b": "102", "name": "Ada"},
               {"a": "8", "b": "103", "name": "Bob"}]
    assert brightspace.person_position(entries) == ("a", True)  # the first id repeats across Ada's resubmissions
    entries = [{"a": "1", "b": "9", "name": "Ada"}, {"a": "2", "b": "9", "name": "Ada"}, {"a": "3", "b": "8",
                                                                                          "name": "Bob"}]
    assert brightspace.person_position(entries) == ("b", True)
    same_everywhere = [{"a": "5", "b": "9", "name": "Ada"}, {"a": "5", "b": "8", "name": "Bob"}]
    assert brightspace.person_position(same_everywhere) == ("b", True)  # one id for two names is no person's
    assert brightspace.person_position([{"a": "1", "b": "2", "name": "Ada"}]) == ("b", False)


def test_brightspace_resubmission_is_one_person_and_the_newest_wins(tmp_path):
    course = tmp_path / "course"
    lines = []
    collect(lms.brightspace(tmp_path / "dl", zipped=False, flat=True).path, course, names=[NB], echo=lines.append)
    rows = [r for r in csv_rows(course / MANIFEST) if r["lms_id"] == "5001"]
    assert len(rows) == 1 and rows[0]["submission_id"] == "102-5001"
    report = {r["file"]: r["reason"] for r in csv_rows(course / REPORT)}
    assert "the newest" in report["101-5001 - Ada Lovelace - Jan 5, 2026 233 PM - 01_devices.ipynb"]
    assert "index" in report["index.html"]


def test_brightspace_without_a_resubmission_says_which_id_it_took(tmp_path):
    # lms-formats.md, Brightspace: "<id>-<id> - <First Last> - <Mon D, YYYY HMM AM>/<file>"
    download = lms.write({"311-6001 - Ada Lovelace - Jan 5, 2026 233 PM/01_devices.ipynb": (lms.correct(), lms.BUILT),
                          "index.html": (b"<html></html>", lms.BUILT)}, tmp_path / "dl", None)
    lines = []
    collect(download, tmp_path / "course", names=[NB], echo=lines.append)
    assert any("took the second" in line for line in lines)


def test_moodle_group_prefixes_never_split_a_person(tmp_path):
    download = lms.moodle_groups(tmp_path / "dl", zipped=True)
    _run(download.path, tmp_path / "course")
    manifest = {r["student_id"]: r for r in csv_rows(tmp_path / "course" / MANIFEST)}
    assert {sid: (r["key"], r["group"], r["name"]) for sid, r in manifest.items()} == {
        "moodle_2001": ("2001", "Team A", "Ada Lovelace"), "moodle_2002": ("2002", "Team A", "Alan Turing"),
        "moodle_2003": ("2003", "", "Grace Hopper")}
    assert moodle.split_group("Default group-Jean-Luc Picard", True) == ("", "Jean-Luc Picard")
    assert moodle.split_group("Jean-Luc Picard", False) == ("", "Jean-Luc Picard")


def test_canvas_anonymous_and_text_entries_are_all_accounted_for(tmp_path):
    download = lms.canvas_anonymous(tmp_path / "dl", zipped=False)
    lines = []
    collect(download.path, tmp_path / "course", names=[NB], echo=lines.append)
    assert any("anonymous grading" in line for line in lines)
    assert canvas.parse("LATE_anon_7mQ2z_500000002_Copy of 01_devices.ipynb")["late"] is True
    assert canvas.parse("lovelaceada_LATE_334244_text.html")["kind"] == "text"
    assert canvas.parse("anon_0OIl0_1_x.ipynb") is None  # 0, O, I, l are no base58 characters


def test_canvas_zip_entry_times_are_never_submission_times(tmp_path):
    """Canvas sets every zip entry to the build moment: nothing is late by it, nothing is timed by it."""
    course = tmp_path / "course"
    _run(lms.canvas(tmp_path / "dl", zipped=True).path, course)
    rows = csv_rows(course / MANIFEST)
    assert rows and all(r["submitted_at"] == "" and r["time_source"] == "Canvas LATE flag" for r in rows)
    assert not list((course / "submitted").rglob("timestamp.txt"))
    late = {r["student_id"] for r in rows if r["late"] == "true"}
    assert late == {"canvas_334244"}


def test_every_file_of_a_download_is_filed_or_reported(tmp_path):
    for name, build in lms.BUILDERS.items():
        download = build(tmp_path / name / "dl", False)
        course = tmp_path / name / "course"
        _run(download.path, course)
        filed = {r["source"] for r in csv_rows(course / MANIFEST)}
        reported = {r["file"] for r in csv_rows(course / REPORT)}
        for path in sorted(p for p in download.path.rglob("*") if p.is_file()):
            label = str(path.relative_to(download.path))
            inside_zip = any(r.startswith(label + ":") for r in filed | reported)
            assert label in filed or label in reported or inside_zip, f"{name}: {label} neither filed nor reported"


def test_an_unknown_layout_is_refused_with_every_file_listed(tmp_path, capsys):
    # a flat folder of files named by no LMS's rule (lms-formats.md: none of the six has this naming)
    download = lms.write({"ada.ipynb": (lms.correct(), lms.T0), "bob.ipynb": (lms.untouched(), lms.T0),
                          "bob notes.txt": (b"hi", lms.T0)}, tmp_path / "dl", None)
    course = tmp_path / "course"
    assert main(["collect", str(download), "--course", str(course), "--notebooks", NB]) == 1
    said = capsys.readouterr().out
    assert "refused 3 file(s)" in said and "Blackboard" in said and "Brightspace" in said
    assert sorted(r["file"] for r in csv_rows(course / REPORT)) == ["ada.ipynb", "bob notes.txt", "bob.ipynb"]
    assert not (course / "submitted").exists()


def test_a_mixed_folder_with_one_unknown_download_still_exits_nonzero(tmp_path, capsys):
    folder = tmp_path / "downloads"
    lms.canvas(folder, zipped=True)
    lms.write({"ada.ipynb": (lms.correct(), lms.T0)}, tmp_path / "tmp", "mystery.zip").rename(folder / "mystery.zip")
    assert main(["collect", str(folder), "--course", str(tmp_path / "course"), "--notebooks", NB]) == 1
    assert "refused 1 file(s)" in capsys.readouterr().out
    assert (tmp_path / "course" / "submitted" / "canvas_340934").is_dir()  # the Canvas part is filed


def test_canvas_times_the_instructor_supplies_are_used_and_said(tmp_path, capsys):
    # lms-formats.md, Canvas: "use LATE, or a submission time the instructor supplies (e.g. an exported CSV)"
    download = lms.canvas_three(tmp_path / "dl", zipped=True).path
    course = tmp_path / "course"
    assert main(["collect", str(download), "--course", str(course), "--notebooks", NB]) == 0
    assert "no timestamp.txt was written" in capsys.readouterr().out
    times = tmp_path / "times.csv"
    times.write_text("canvas_user_id,submitted_at\n334244,2026-01-05T14:07:00+00:00\n999,2026-01-05T10:00:00Z\n")
    assert main(["collect", str(download), "--course", str(course), "--notebooks", NB, "--times", str(times)]) == 0
    said = capsys.readouterr().out
    assert "no hand-in in this download for 999" in said
    manifest = {r["student_id"]: r for r in csv_rows(course / MANIFEST)}
    assert (manifest["canvas_334244"]["submitted_at"], manifest["canvas_334244"]["time_source"],
            manifest["canvas_334244"]["late"]) == ("2026-01-05T14:07:00+00:00", "instructor-supplied time", "true")
    stamp = (course / "submitted" / "canvas_334244" / NB / "timestamp.txt").read_text()
    assert stamp.startswith("2026-01-05 14:07:00")
    assert manifest["canvas_340934"]["submitted_at"] == ""  # no time given: none made up
    bad = tmp_path / "bad.csv"
    bad.write_text("who,when\n1,2\n")
    assert main(["collect", str(download), "--course", str(course), "--notebooks", NB, "--times", str(bad)]) == 2
    assert "submitted_at" in capsys.readouterr().out


def test_utf8_names_in_a_zip_without_the_utf8_flag_stay_readable(tmp_path, monkeypatch):
    """lms-formats.md, Canvas: "Unicode letters survive (müllerjosé, 王小明)"; whether a zip writer marks UTF-8
    names with the zip's flag is not stated, so both readings are handled: here, UTF-8 bytes without the flag."""
    import zipfile

    monkeypatch.setattr(zipfile.ZipInfo, "_encodeFilenameFlags",
                        lambda self: (self.filename.encode("utf-8"), self.flag_bits & ~0x800))
    # lms-formats.md, Moodle: "accents stay (UTF-8)"; "<prefix>_assignsubmission_file_/<file>"
    download = lms.write({"José Müller_1006_assignsubmission_file_/01_devices.ipynb": (lms.correct(), lms.T0),
                          "王小明_1009_assignsubmission_file_/01_devices.ipynb": (lms.untouched(), lms.T0)},
                         tmp_path / "dl", "moodle.zip")
    monkeypatch.undo()
    with zipfile.ZipFile(download) as zf:
        assert not any(m.flag_bits & 0x800 for m in zf.infolist())  # the fixture really lacks the flag
    _run(download, tmp_path / "course")
    names = {r["student_id"]: r["name"] for r in csv_rows(tmp_path / "course" / MANIFEST)}
    assert names == {"moodle_1006": "José Müller", "moodle_1009": "王小明"}


@pytest.mark.parametrize("sortable", ["müllerjosé", "王小明", "शर्माप्रिया", "smithbob", ""])
def test_canvas_sortable_names_in_any_script_are_read(sortable):
    # lms-formats.md, Canvas: "<sortable name> is Last, First run through gsub(/[^[[:word:]]]/, "") and downcase:
    # Unicode letters survive" (Ruby's [[:word:]] keeps marks such as Devanagari's vowel signs)
    info = canvas.parse(f"{sortable}_LATE_350003_400000012_01_devices.ipynb")
    assert (info["name"], info["id"], info["late"]) == (sortable, "350003", True)
    assert canvas.parse(f"{sortable} x_350003_400000012_01_devices.ipynb") is None  # a space never survives


def test_blackboard_receipt_date_cross_checks_the_stamp(tmp_path):
    # lms-formats.md, Blackboard: the receipt holds "Date Submitted: …"; "the stamp is the submission time"
    same = tmp_path / "same.txt"
    same.write_bytes(lms._receipt("Ada Lovelace", "ada", datetime.datetime(2026, 1, 6, 9, 30), "a.ipynb", "b"))
    assert blackboard.receipt_date(same) == datetime.datetime(2026, 1, 6, 9, 30)
    other = tmp_path / "other.txt"
    other.write_bytes(b"Nom : Ada (ada)\nDate de remise : lundi 5 janvier 2026\n")
    assert blackboard.receipt_date(other) is None  # localised labels: no cross-check, the stamp stays the time
    stem = "Assignment_1_ada_attempt_2026-01-06-09-30-00"
    download = lms.write({f"{stem}_01_devices.ipynb": (lms.correct(), lms.BUILT),
                          f"{stem}.txt": (lms._receipt("Ada Lovelace", "ada", datetime.datetime(2026, 1, 6, 11, 0),
                                                       "01_devices.ipynb", f"{stem}_01_devices.ipynb"), lms.BUILT)},
                         tmp_path / "dl", "gradebook_GPU101_A1_2026-01-12-08-15-00.zip")
    lines = []
    collect(download, tmp_path / "course", names=[NB], echo=lines.append)
    assert any("Date Submitted 2026-01-06 11:00:00" in line and "the stamp is used" in line for line in lines)
    assert csv_rows(tmp_path / "course" / MANIFEST)[0]["submitted_at"] == lms.utc(datetime.datetime(2026, 1, 6, 9, 30))
