"""``collect --times FILE``: submission times the instructor supplies, where the LMS's download has none (Canvas).

lms-formats.md, Canvas: "Do not compute lateness from zip entry times; use LATE, or a submission time the
instructor supplies (e.g. an exported CSV)". FILE is a CSV (comma, semicolon or tab) with a header: one column
naming the person as the download does (``canvas_user_id``, ``user_id``, ``ID``, ``lms_id`` or ``student_id``) and
one with the time (``submitted_at``, ``submitted``, ``Submitted At``), ISO 8601; a time without a zone is local.
Only hand-ins whose LMS records no time take it; a row naming no hand-in, or a time that does not parse, is said.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from graders.errors import InputError
from graders.intake.lms import HandIn, epoch

ID_COLUMNS = ("canvas_user_id", "user_id", "id", "lms_id", "student_id")
TIME_COLUMNS = ("submitted_at", "submitted", "submitted at", "submission time")
TIME_SOURCE = "instructor-supplied time"


def read(path: Path) -> dict[str, float]:
    """person id -> epoch seconds; ValueError (a clear message) when the file is not such a table."""
    text = Path(path).read_bytes().decode("utf-8-sig", errors="replace")
    first = text.splitlines()[0] if text.strip() else ""
    delimiter = max(",;\t", key=first.count)
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    if not rows:
        raise InputError(f"--times {path}: the file is empty")
    header = [h.strip().casefold() for h in rows[0]]
    id_col = next((header.index(c) for c in ID_COLUMNS if c in header), None)
    time_col = next((header.index(c) for c in TIME_COLUMNS if c in header), None)
    if id_col is None or time_col is None:
        raise InputError(f"--times {path}: expected a column naming the person ({', '.join(ID_COLUMNS)}) and one "
                         f"with the time ({', '.join(TIME_COLUMNS)}); its columns are {', '.join(rows[0])}")
    times, bad = {}, []
    for row in rows[1:]:
        if len(row) <= max(id_col, time_col) or not row[id_col].strip():
            continue
        when = epoch(row[time_col].strip())
        if when is None:
            bad.append(row[id_col].strip())
        else:
            times[row[id_col].strip()] = when
    if bad:
        raise InputError(f"--times {path}: the time of {', '.join(bad[:5])} is not a date and time (ISO 8601)")
    return times


def apply(hand_ins: list[HandIn], times: dict[str, float], notes: list[str]) -> None:
    """Give each hand-in without an LMS time its supplied one; say which rows named no such hand-in."""
    used = set()
    for h in hand_ins:
        for ident in (h.lms_id, h.key, h.student_id):
            if ident and ident in times:
                used.add(ident)
                if h.submitted_at is None and not h.file_times:
                    h.submitted_at, h.time_source = times[ident], TIME_SOURCE
                else:
                    notes.append(f"--times: {ident} ignored: {h.lms} records its own time ({h.time_source})")
                break
    unused = sorted(set(times) - used)
    if unused:
        notes.append(f"--times: no hand-in in this download for {', '.join(unused[:10])}"
                     f"{' ...' if len(unused) > 10 else ''}")
