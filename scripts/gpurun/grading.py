"""The samples graded on the GPU machine, compared row by row with what the CPU grader gives them.

The expectations are those ``python -m graders samples --check`` holds the CPU's grading to
(``graders.qa.sample_check.expectations``), compared the same way (``graders.qa.selftest.compare``), so a GPU row
is "as expected" exactly when a CPU row would be. A run stopped at its time limit may have no ``grades.csv``
(or one without the rows graded last): the progress lines autograde printed (``[3/24] student notebook 4/10
review``) stand in for it, with the scores and statuses but not the test cells.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

#: Rows the one-line verdict names before it counts the rest (the table names every one).
NAMED = 8
PROGRESS = re.compile(r"^\[(\d+)/(\d+)\]\s+(\S+)\s+(\S+)\s+(-|[\d.]+)/([\d.]+)\s+(graded|review|failed)\s*$", re.M)


def rows_from_progress(text: str) -> list:
    """The rows autograde's progress lines name (a later line for the same pair wins)."""
    from graders.grading.row import Row

    rows = {}
    for _, _, student, notebook, score, max_score, status in PROGRESS.findall(text):
        rows[(student, notebook)] = Row(student_id=student, notebook=notebook, status=status,
                                        score=None if score == "-" else float(score), max_score=float(max_score))
    return list(rows.values())


def graded_rows(out: Path, progress_text: str = "") -> tuple[list, str]:
    """The rows graded into ``out`` and where they were read: ``grades.csv`` where it holds every row the progress
    lines name, else those lines."""
    from graders.grading.graded_folder import read_csv

    logged = rows_from_progress(progress_text)
    if (Path(out) / "grades.csv").exists():
        rows = read_csv(Path(out))
        if {(r.student_id, r.notebook) for r in logged} <= {(r.student_id, r.notebook) for r in rows}:
            return rows, "grades.csv"
    return logged, "autograde's progress lines"


def devices_seen(graded: Iterable[Path]) -> dict[str, int]:
    """How many of the ``graded`` notebooks' set-up cells reported each device (``Device: cuda``): whether the
    grading kernels used the GPU at all."""
    seen: dict[str, int] = {}
    for path in graded:
        match = re.search(r"Device: (\w+)", path.read_text(encoding="utf-8", errors="replace"))
        key = match.group(1) if match else "not reported"
        seen[key] = seen.get(key, 0) + 1
    return seen


def _score(value: float | None) -> str:
    return "withheld" if value is None else f"{value:g}"


def compare_rows(rows: list, names: list[str]) -> list[dict]:
    """One entry per sample row the CPU expects: what it must score, what it got here, and the verdict
    (``as expected``, else the sentence ``samples --check`` would print for it)."""
    from graders.qa.sample_check import expectations
    from graders.qa.selftest import compare

    by_key = {(r.student_id, r.notebook): r for r in rows}
    table = []
    for exp in expectations(names):
        row = by_key.get((exp.student, exp.notebook))
        problems = [p.replace(" ()", "") for p in compare([row] if row else [], [exp])]  # () : no message logged
        if problems and row and row.status != "graded" and row.score != exp.score:
            problems[0] += f"; scored {_score(row.score)}, expected {exp.score:g}"
        table.append({
            "student": exp.student, "notebook": exp.notebook, "expected": f"{exp.score:g}",
            "got": f"{_score(row.score)}/{row.max_score:g}" if row else "(not graded)",
            "status": row.status if row else "",
            "verdict": "as expected" if not problems else problems[0].split(": ", 1)[1],
        })
    return table


def verdict(table: list[dict]) -> str:
    """One line: how many rows equal the CPU's, and which do not."""
    wrong = [t for t in table if t["verdict"] != "as expected"]
    missing = [t for t in wrong if t["got"] == "(not graded)"]
    line = f"GPU grading: {len(table) - len(wrong)}/{len(table)} sample rows as the CPU grader expects"
    if not wrong:
        return line
    differ = [f"{t['student']}/{t['notebook']}" for t in wrong if t not in missing]
    if differ:
        more = f" and {len(differ) - NAMED} more" if len(differ) > NAMED else ""
        line += f"; NOT as expected: {', '.join(differ[:NAMED])}{more}"
    if missing:
        line += f"; {len(missing)} not graded (the run stopped before them)"
    return line


def table_lines(table: list[dict], width: int = 100) -> list[str]:
    """The per-row table (markdown), a verdict cut to ``width`` characters."""
    lines = ["| student | notebook | CPU expects | GPU got | status | verdict |", "|---|---|---:|---:|---|---|"]
    for t in table:
        text = t["verdict"] if len(t["verdict"]) <= width else t["verdict"][: width - 3] + "..."
        lines.append(f"| {t['student']} | `{t['notebook']}` | {t['expected']} | {t['got']} | {t['status']} "
                     f"| {text.replace('|', '/')} |")
    return lines
