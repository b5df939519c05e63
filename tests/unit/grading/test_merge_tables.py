"""``merge`` reads every shard's header and merges grades.csv and grades_detail.csv by column name (issue 44,
deliverable 3): shards graded before and after a column was added (``reason``) merge with no field lost or moved,
and what cannot be reconciled is refused in one line that names the shards, before anything is written."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from graders.errors import InputError
from graders.grading.merge import merge_tables

GRADES = ["student_id", "notebook", "score", "max_score", "status", "message"]


def _write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def _read(path: Path) -> tuple[list[str], list[dict]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def _old_shard(folder: Path) -> Path:
    """Graded before grades_detail.csv had a ``reason`` column."""
    _write(folder / "grades.csv", GRADES, [["ann", "01_devices", "7", "10", "graded", "a note"]])
    _write(folder / "grades_detail.csv", ["student_id", "notebook", "grade_id", "score", "max_score"],
           [["ann", "01_devices", "test_a", "7", "10"]])
    return folder


def _new_shard(folder: Path, student: str = "bob") -> Path:
    """Graded after, its columns in another order (a merge goes by name, not by place)."""
    _write(folder / "grades.csv", ["student_id", "notebook", "max_score", "score", "status", "message"],
           [[student, "01_devices", "10", "4", "graded", ""]])
    _write(folder / "grades_detail.csv", ["student_id", "notebook", "grade_id", "reason", "score", "max_score"],
           [[student, "01_devices", "test_a", "assertion failed: wrong device", "4", "10"]])
    return folder


@pytest.mark.parametrize("order", ["old first", "new first"])
def test_shards_of_both_ages_merge_with_every_field(tmp_path, order):
    shards = [_old_shard(tmp_path / "old"), _new_shard(tmp_path / "new")]
    if order == "new first":
        shards.reverse()
    out = tmp_path / "merged"
    out.mkdir()
    merge_tables(out, shards, ["01_devices"])
    header, rows = _read(out / "grades.csv")
    assert header == GRADES
    assert rows == [
        {"student_id": "ann", "notebook": "01_devices", "score": "7", "max_score": "10", "status": "graded",
         "message": "a note"},
        {"student_id": "bob", "notebook": "01_devices", "score": "4", "max_score": "10", "status": "graded",
         "message": ""}]
    header, detail = _read(out / "grades_detail.csv")
    assert header == ["student_id", "notebook", "grade_id", "score", "max_score", "reason"]
    assert detail == [
        {"student_id": "ann", "notebook": "01_devices", "grade_id": "test_a", "score": "7", "max_score": "10",
         "reason": ""},
        {"student_id": "bob", "notebook": "01_devices", "grade_id": "test_a", "score": "4", "max_score": "10",
         "reason": "assertion failed: wrong device"}]


def test_what_cannot_be_reconciled_is_refused_in_one_line_naming_the_shards(tmp_path):
    good = _new_shard(tmp_path / "good")
    newer = _new_shard(tmp_path / "newer", student="cat")
    _write(newer / "grades.csv", GRADES + ["weight"], [["cat", "01_devices", "4", "10", "graded", "", "2"]])
    torn = _new_shard(tmp_path / "torn", student="dan")
    _write(torn / "grades.csv", ["student_id", "notebook", "score"], [["dan", "01_devices", "4"]])
    out = tmp_path / "merged"
    out.mkdir()
    with pytest.raises(InputError) as refused:
        merge_tables(out, [good, newer, torn], ["01_devices"])
    message = str(refused.value)
    assert "\n" not in message
    assert f"grades.csv of {newer} has column(s) weight" in message
    assert f"grades.csv of {torn} lacks column(s) max_score, status, message" in message
    assert str(good) not in message
    assert list(out.iterdir()) == []  # nothing written


def test_a_student_in_two_shards_is_refused_naming_both(tmp_path):
    a, b = _new_shard(tmp_path / "a"), _new_shard(tmp_path / "b")
    with pytest.raises(InputError, match=f"grades.csv of {a}, {b} grade the same student's notebook"):
        merge_tables(tmp_path, [a, b], ["01_devices"])


def test_a_merge_into_a_folder_of_the_older_age_keeps_its_rows(tmp_path):
    out = _old_shard(tmp_path / "merged")
    merge_tables(out, [_new_shard(tmp_path / "new")], ["01_devices"])
    assert [r["student_id"] for r in _read(out / "grades.csv")[1]] == ["ann", "bob"]
    assert [r["reason"] for r in _read(out / "grades_detail.csv")[1]] == ["", "assertion failed: wrong device"]


def test_the_merge_command_refuses_in_one_line_before_it_writes(tmp_path, capsys):
    from graders.__main__ import main

    good, torn = _new_shard(tmp_path / "good"), _new_shard(tmp_path / "torn", student="dan")
    _write(torn / "grades_detail.csv", ["student_id", "notebook", "score"], [["dan", "01_devices", "4"]])
    out = tmp_path / "merged"
    assert main(["merge", str(good), str(torn), "--out", str(out), "--notebooks", "01_devices"]) == 2
    said = capsys.readouterr().out.strip()
    assert said.count("\n") == 0 and said.startswith("merge: cannot merge: grades_detail.csv of ") and str(torn) in said
    assert not (out / "course").exists() and not (out / "grades.csv").exists()
