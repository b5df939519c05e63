"""The CSV files the grader writes (grades.csv, the collect manifest and report), read back as rows."""

from __future__ import annotations

import csv
from pathlib import Path


def csv_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
