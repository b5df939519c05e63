"""``python -m graders build``: regenerate notebooks/ from solutions/ with nbgrader."""

from __future__ import annotations

import tempfile
from pathlib import Path

from . import course, nbtools
from .paths import NOTEBOOKS, notebook_names


def build(out: Path = NOTEBOOKS, names: list[str] | None = None) -> list[Path]:
    """Generate the student notebooks into ``out``; return the files that changed."""
    names = names or notebook_names()
    changed = []
    with tempfile.TemporaryDirectory(prefix="gpucourse-build-") as tmp:
        root = Path(tmp) / "course"
        course.create(root, names)
        for name in names:
            nb = nbtools.tidy(nbtools.read(root / "release" / name / f"{name}.ipynb"))
            target = Path(out) / f"{name}.ipynb"
            before = target.read_text(encoding="utf-8") if target.exists() else None
            nbtools.write(nb, target)
            if target.read_text(encoding="utf-8") != before:
                changed.append(target)
    return changed
