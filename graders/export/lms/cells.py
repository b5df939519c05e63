"""What an LMS export writes of one person: a notebook's score and lateness (:class:`Cell`), the person with their
identifiers (:class:`Person`), and the few formatting rules every LMS file shares."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from graders.errors import RefusedError
from graders.export.identity import Who

UTC = dt.UTC


class ExportRefused(RefusedError, RuntimeError):
    """No file an importer would accept can be written: the message says what to supply."""

    exit_code = 2  # what `python -m graders export` has always exited with on a refusal


def parse_due(text: str) -> dt.datetime:
    """An ISO time (``2026-12-15T23:59``); without an offset it is UTC. Returns an aware time."""
    when = dt.datetime.fromisoformat(text.strip())
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def aware(when: dt.datetime | None) -> dt.datetime | None:
    """nbgrader stores naive UTC times."""
    return None if when is None else (when.replace(tzinfo=UTC) if when.tzinfo is None else when)


@dataclass
class Cell:
    score: float | None          # None: left empty in the file
    max_score: float
    submitted_at: dt.datetime | None = None
    due: dt.datetime | None = None
    why_empty: str = ""
    late_flag: bool | None = None   # what the LMS says (Canvas LATE) when it records no time

    @property
    def minutes_late(self) -> int | None:
        if self.submitted_at is None or self.due is None:
            return None
        return max(0, int((self.submitted_at - self.due).total_seconds() // 60))

    @property
    def late(self) -> str:
        """``yes``/``no`` from the time, else from the LMS's flag; empty when neither is known."""
        if self.minutes_late is not None:
            return "yes" if self.minutes_late > 0 else "no"
        return "" if self.late_flag is None else ("yes" if self.late_flag else "no")


@dataclass
class Person:
    who: Who
    cells: dict = field(default_factory=dict)  # column -> Cell

    @property
    def student_id(self) -> str:
        return self.who.student_id

    @property
    def label(self) -> str:
        """How messages name the person: nbgrader id and name, or the roster's name and ids."""
        ids = ", ".join(f"{k} {v}" for k, v in self.who.ids.items())
        if self.who.student_id:
            return f"{self.who.student_id} ({self.who.name})" if self.who.name else self.who.student_id
        return f"{self.who.name} ({ids})" if ids else self.who.name

    @property
    def total(self) -> float:
        return sum(c.score for c in self.cells.values() if c.score is not None)


def fmt(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def late_flag(text: str | None) -> bool | None:
    text = (text or "").strip().lower()
    return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(text)


def roster_column(header: tuple[str, ...], notebook: str, pattern: str) -> str | None:
    """The roster's own column for ``notebook`` (its title then the LMS's decoration), if it has one."""
    for column in header:
        if re.fullmatch(re.escape(notebook) + pattern, column.strip()):
            return column.strip()
    return None


def check_points(plugin, notebook: str, column: str, pattern: str, max_score: float) -> None:
    """Warns where the LMS's item has other points than the notebook: scores are not rescaled."""
    m = re.search(pattern, column)
    if m and abs(float(m.group(1)) - max_score) > 1e-9:
        plugin.warn(f"{notebook}: the LMS's column {column!r} is out of {m.group(1)} points, the notebook out of "
                    f"{fmt(max_score)}; scores are written as they are (points out of {fmt(max_score)})")
