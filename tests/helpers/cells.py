"""What a cell of a student notebook is to the student, from the nbgrader metadata the build writes."""

from __future__ import annotations


def role(cell) -> str:
    """``"skeleton"`` (an exercise), ``"test"`` (a visible test cell) or ``"demo"`` (everything else)."""
    meta = cell.metadata.get("nbgrader", {})
    if meta.get("solution"):
        return "skeleton"
    if meta.get("grade"):
        return "test"
    return "demo"
