"""The guard's signed log read back on the host (graders/grading/guard_log.py): one reader checks every signature,
and both the report and the last cell the kernel started are built on it."""

from __future__ import annotations

import hashlib
import hmac
import json

from graders.grading import guard_log

KEY = b"k" * 32


def line(record: dict, key: bytes = KEY) -> str:
    body = json.dumps(record)
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest() + " " + body


def test_the_reader_keeps_the_genuine_records_and_counts_the_rest(tmp_path):
    log = tmp_path / "guard.log"
    log.write_text("\n".join([line({"seq": 0, "kind": "install"}), line({"seq": 1, "kind": "cell", "hash": "h"},
                                                                         key=b"x" * 32),
                              line({"not": "a record"}), "no signature at all",
                              line({"seq": 1, "kind": "cell", "hash": "h1"})]) + "\n")
    signed = guard_log.signed_records(log, KEY)
    assert [r["seq"] for r in signed.records] == [0, 1] and (signed.forged, signed.unreadable) == (2, 1)
    assert guard_log.signed_records(tmp_path / "missing.log", KEY) == guard_log.SignedLog()


def test_a_forged_cell_line_is_neither_the_last_cell_nor_silent(tmp_path):
    """The kernel's last cell is read with the same check as the report: a line the student forged with another key
    names no cell to neutralise, and the report says the log was forged."""
    log = tmp_path / "guard.log"
    genuine = [{"seq": 0, "kind": "install"}, {"seq": 1, "kind": "cell", "hash": "answer", "test": None}]
    forged = {"seq": 2, "kind": "cell", "hash": "a-test-cell", "test": "test_a"}
    log.write_text("\n".join([line(r) for r in genuine] + [line(forged, key=b"s" * 32)]) + "\n")
    report = guard_log.read_log(log, KEY, [], ran=True)
    assert report.last_cell["hash"] == "answer"
    assert report.unrepairable == ["1 line(s) in the grader's integrity log were not written by the grader"]
    other_key = guard_log.read_log(log, b"s" * 32, [], ran=False)
    assert other_key.last_cell["hash"] == "a-test-cell"  # what that key signed, and only that
