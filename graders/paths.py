"""Where the course's files are. Notebook names and order come from ``sources/manifest.toml``."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = REPO / "sources"
MANIFEST = SOURCES / "manifest.toml"
SOLUTIONS = REPO / "solutions"
NOTEBOOKS = REPO / "notebooks"
SAMPLES = REPO / "samples" / "submissions"
COURSE_ID = "gpu-mixed-precision"


def manifest(path: Path = MANIFEST) -> list[dict]:
    """The manifest's entries in course order: ``{"name", "title", "short", "teaches", "next"?}``."""
    with open(path, "rb") as f:
        return list(tomllib.load(f)["notebook"])


def notebook_names() -> list[str]:
    """The course's notebooks in order: ``01_devices``, ``02_transfers``, ..."""
    return [entry["name"] for entry in manifest()]


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
