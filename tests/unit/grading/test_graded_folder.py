"""The graded folder's owner (graders.grading.graded_folder): its format stamp, read back from every version this
grader knows, and a folder of a newer format refused rather than rewritten without what it does not know. A run
into a folder of the previous format: tests/unit/grading/test_incremental_rows.py."""

from __future__ import annotations

import json

import pytest

from graders.errors import InputError
from graders.grading import graded_folder
from graders.grading.row import Row

ROW = Row("ann", "01_devices", 7.0, 10.0, "graded", "", cells={"test_a": (7.0, 10.0)})


def test_a_folder_says_its_format(tmp_path):
    assert graded_folder.format_of(tmp_path) is None  # nothing graded yet
    graded_folder.write_csv([ROW], tmp_path)
    assert json.loads((tmp_path / graded_folder.STAMP).read_text()) == {"format": graded_folder.FORMAT}
    (tmp_path / graded_folder.STAMP).unlink()
    assert graded_folder.format_of(tmp_path) == 1  # grades written before the stamp


def test_format_1_reads_back_without_its_reason_column(tmp_path):
    (tmp_path / "grades.csv").write_text("student_id,notebook,score,max_score,status,message\n"
                                         "ann,01_devices,7,10,graded,\n")
    (tmp_path / "grades_detail.csv").write_text("student_id,notebook,grade_id,score,max_score\n"
                                                "ann,01_devices,test_a,7,10\n")
    [row] = graded_folder.read_csv(tmp_path)
    assert (row.score, row.cells, row.reasons) == (7.0, {"test_a": (7.0, 10.0)}, {})
    assert row.reason("test_a") == "scored 7 of 10; no reason was recorded"


def test_a_newer_format_is_refused_not_rewritten(tmp_path):
    graded_folder.write_csv([ROW], tmp_path)
    (tmp_path / graded_folder.STAMP).write_text(json.dumps({"format": graded_folder.FORMAT + 1}))
    with pytest.raises(InputError, match="newer than this grader's"):
        graded_folder.read_rows(tmp_path)


def test_the_ledger_and_the_json_files_are_replaced_whole(tmp_path):
    graded_folder.write_ledger(tmp_path, {"b/x/t": 1.0, "a/x/t": 2.0})
    assert list(graded_folder.read_ledger(tmp_path)) == ["a/x/t", "b/x/t"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [graded_folder.LEDGER]  # no temporary left
