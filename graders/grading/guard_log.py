"""The host side of the in-kernel guard: its signed log, read back after the run (docs/grading.md, "Tampering").

The guard (``graders.grading.guard``) signs every line it writes with the run's key (HMAC-SHA256).
:func:`signed_records` is the one reader that checks those signatures; on it, :func:`read_log` checks that
the log is whole (in order, every checkpoint present) and gathers what the guard found into a
:class:`GuardReport`, which also names the cell the kernel was running when it stopped (``last_cell``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class SignedLog:
    """A guard log's lines, each genuine (signed with the key) or not."""
    records: list[dict] = field(default_factory=list)  # genuine and readable, in the order written
    forged: int = 0       # lines whose signature is not the key's
    unreadable: int = 0   # genuine lines that are not a record (the kernel's json was replaced)


def signed_records(path: Path, key: bytes) -> SignedLog:
    """Every line of the log at ``path`` (none when it does not exist), its signature checked against ``key``."""
    log = SignedLog()
    text = path.read_text(errors="replace") if path.exists() else ""
    for line in text.splitlines():
        mac, _, body = line.partition(" ")
        if not hmac.compare_digest(mac, hmac.new(key, body.encode(), hashlib.sha256).hexdigest()):
            log.forged += 1
            continue
        record = _record(body)
        if record is None:
            log.unreadable += 1
            continue
        log.records.append(record)
    return log


def _record(body: str) -> dict | None:
    """A signed line's record, or None when it is not one: student code that replaced ``json.dumps``
    (put back only at the next checkpoint) makes the guard sign whatever that returns."""
    try:
        record = json.loads(body)
    except ValueError:
        return None
    ok = isinstance(record, dict) and isinstance(record.get("seq"), int) and isinstance(record.get("kind"), str)
    return record if ok else None


@dataclass
class GuardReport:
    tampering: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    per_test: dict[str, list[str]] = field(default_factory=dict)
    #: the part of ``tampering`` no repair undoes: the log itself is not whole (forged, cut,
    #: checkpoints missing or broken), so no score computed in that run can be trusted
    unrepairable: list[str] = field(default_factory=list)
    #: the last cell the kernel started, ``{"hash": ..., "test": ...}``: what stopped a kernel that died
    last_cell: dict | None = None


def read_log(path: Path, key: bytes, tests: list[str], ran: bool = True) -> GuardReport:
    """Check the guard's signed log: every line genuine, in order, every checkpoint present."""
    report = GuardReport()
    signed = signed_records(path, key)
    records, forged, unreadable = signed.records, signed.forged, signed.unreadable
    report.last_cell = next((r for r in reversed(records) if r["kind"] == "cell"), None)
    if forged:
        report.tampering.append(f"{forged} line(s) in the grader's integrity log were not written by the grader")
    if unreadable:
        report.tampering.append(f"{unreadable} line(s) in the grader's integrity log were garbled "
                                "(the kernel's json was replaced)")
    if [r["seq"] for r in records] != list(range(len(records))):
        report.tampering.append("the grader's integrity log was cut or reordered")
    kinds = {(r["kind"], r.get("test")) for r in records}
    if ran and ("install", None) not in kinds:
        report.tampering.append("the grader's integrity guard did not start")
        report.unrepairable = [t for t in report.tampering if _log_not_whole(t)]
        return report
    for r in records:  # findings count even when the run did not finish (a dead kernel)
        if r["kind"] == "error":
            report.tampering.append(f"the integrity check {r['where']} {r['test']} was broken ({r['error'][:120]})")
        elif r["kind"] == "event" and r.get("severe"):
            where = f" during {r['during']}" if r.get("during") else ""
            report.tampering.append(f"{r['what']}{where}")
            if r.get("during"):
                report.per_test.setdefault(r["during"], []).append(r["what"])
        elif r["kind"] == "event":
            report.notes.append(r["what"])
        elif r["kind"] == "before":
            for change in r.get("restored", []):
                if change.startswith("the built-in") and "was redefined" in change:
                    report.notes.append(f"{change} (put back before {r['test']})")
                else:
                    report.tampering.append(f"{change} before {r['test']} (put back)")
        elif r["kind"] == "after":
            for change in r.get("changes", []):
                report.tampering.append(f"{change} while {r['test']} ran")
                report.per_test.setdefault(r["test"], []).append(change)
    for test in tests if ran else []:
        for kind in ("before", "after"):
            if (kind, test) not in kinds:
                report.tampering.append(f"the integrity check {kind} {test} did not run")
    report.tampering = list(dict.fromkeys(report.tampering))
    report.notes = list(dict.fromkeys(report.notes))
    report.unrepairable = [t for t in report.tampering if _log_not_whole(t)]
    return report


def _log_not_whole(finding: str) -> bool:
    """A finding about the log itself (see ``read_log``), not about what the guard saw and undid."""
    return "integrity log" in finding or finding.startswith(("the grader's integrity guard did not start",
                                                             "the integrity check "))

