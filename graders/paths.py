"""Where the course's files are. Notebook names come from solutions/, the single source."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
NOTEBOOKS = REPO / "notebooks"
SAMPLES = REPO / "samples" / "submissions"
COURSE_ID = "gpu-mixed-precision"


def notebook_names() -> list[str]:
    """The course's notebooks in order: ``01_devices``, ``02_transfers``, ..."""
    return sorted(p.stem for p in SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
