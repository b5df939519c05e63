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


def is_course(folder: Path) -> bool:
    """An nbgrader course folder: an instructor's own, one ``collect`` filed into, or one the grader made."""
    folder = Path(folder)
    return any((folder / part).exists() for part in ("nbgrader_config.py", "gradebook.db", "submitted"))


def course_root(out: Path) -> Path:
    """The nbgrader course a results folder grades into: ``out/course`` (made by the grader), unless
    ``out`` is an nbgrader course itself (an instructor's own, or one ``collect`` filed into)."""
    out = Path(out)
    if (out / "course").is_dir() or not is_course(out):
        return out / "course"
    return out
