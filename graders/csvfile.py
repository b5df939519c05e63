"""The CSV tables the grader keeps beside a course (``collect``'s manifest and report, the grades tables),
read and written one way: UTF-8, a header row, one dict per row."""

from __future__ import annotations

import csv
import io
from pathlib import Path


def read_rows(path: Path) -> list[dict]:
    """The rows of the table at ``path`` (none when there is no file yet)."""
    path = Path(path)
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, fields: list[str], rows: list[dict]) -> None:
    """Write the table, or leave the file as it is when it already holds exactly that (a rerun)."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fields, extrasaction="ignore")
    writer.writeheader()
    writer.writerows([{k: r.get(k, "") for k in fields} for r in rows])
    data = text.getvalue().encode("utf-8")
    path = Path(path)
    if path.exists() and path.read_bytes() == data:
        return
    part = path.with_suffix(".part")
    part.write_bytes(data)
    part.replace(path)  # never half a table: a reader sees the old one or the new one
