"""Small, dependable operations on notebooks: read, tidy, write, and look at nbgrader cells."""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path

import nbformat

SOLUTION_BLOCK = re.compile(r"^[ \t]*### BEGIN SOLUTION[^\n]*\n(.*?)^[ \t]*### END SOLUTION[^\n]*\n?",
                            re.S | re.M)
HIDDEN_BLOCK = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[^\n]*\n?", re.S | re.M)


def read(path: str | Path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


def tidy(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """No outputs, no execution counts, no per-cell execution metadata: diffs stay readable."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        cell.metadata.pop("scrolled", None)
    nb.metadata.pop("widgets", None)
    return nb


def write(nb: nbformat.NotebookNode, path: str | Path) -> None:
    """Write in nbformat's canonical layout (sorted keys, indent 1, trailing newline)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    text = nbformat.writes(nb) + "\n"
    Path(path).write_text(text, encoding="utf-8")


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def grade_id(cell) -> str | None:
    return nbgrader_meta(cell).get("grade_id")


def is_test_cell(cell) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and not meta.get("solution")


def is_solution_cell(cell) -> bool:
    return bool(nbgrader_meta(cell).get("solution"))


def test_points(nb) -> dict[str, float]:
    """``{grade_id: points}`` of every autograded test cell, in notebook order."""
    return {grade_id(c): float(nbgrader_meta(c).get("points", 0)) for c in nb.cells if is_test_cell(c)}


def answer_from_solution(source: str) -> str:
    """The reference answer as a student would type it: solution markers removed, code kept."""
    def keep(match: re.Match) -> str:
        return match.group(1)
    return SOLUTION_BLOCK.sub(keep, source)


def strip_hidden(source: str) -> str:
    return HIDDEN_BLOCK.sub("", source)


_AST_LOCK = threading.Lock()


def parse_python(source: str) -> ast.Module:
    """``ast.parse``, one thread at a time.

    CPython 3.11 keeps the AST converter's recursion depth in interpreter-wide state, so two
    threads parsing at once (``--jobs``) can fail with "SystemError: AST constructor recursion
    depth mismatch" (CPython gh-106905).
    """
    with _AST_LOCK:
        return ast.parse(source)


def title(nb, default: str) -> str:
    """The text of the notebook's first ``# `` heading, else ``default``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return default
