"""From whatever a student handed in to one clean notebook file per assignment.

People rename files (``Copy of 01_devices.ipynb``, ``01_devices (1).ipynb``), hand in broken
JSON or empty files, and paste graded cells twice. Each problem becomes either a repaired
notebook or a reason a person understands; nothing here raises for a bad submission.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import limits, nbtools


@dataclass
class Intake:
    """What was found for one student and one notebook."""
    notebook: str
    path: Path | None = None
    nb: nbformat.NotebookNode | None = None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)


def normalise_name(filename: str) -> str:
    """``'Copy of 01_Devices (2).ipynb'`` -> ``'01_devices'``: what a browser or Colab did, undone."""
    stem = Path(filename).name
    stem = re.sub(r"\.ipynb$", "", stem, flags=re.I)
    stem = re.sub(r"^(copy of |kopie von |copie de )+", "", stem, flags=re.I)
    stem = re.sub(r"(\s*\(\d+\)|\s*-\s*copy|_copy|-checkpoint)+$", "", stem, flags=re.I)
    return re.sub(r"[\s\-]+", "_", stem.strip()).lower()


def match_files(files: list[Path], names: list[str]) -> dict[str, list[Path]]:
    """Group a student's .ipynb files by the released notebook each one is a copy of."""
    found: dict[str, list[Path]] = {name: [] for name in names}
    for path in files:
        norm = normalise_name(path.name)
        for name in names:
            if norm == name or norm.startswith(name) or norm == name.split("_", 1)[1]:
                found[name].append(path)
                break
    return found


def choose(paths: list[Path], name: str) -> tuple[Path | None, list[str]]:
    """The file to grade when several claim the same notebook: the exact name, else the newest."""
    if not paths:
        return None, []
    exact = [p for p in paths if p.name == f"{name}.ipynb"]
    pick = exact[0] if exact else max(paths, key=lambda p: (p.stat().st_mtime, p.name))
    notes = []
    if len(paths) > 1:
        others = ", ".join(sorted(p.name for p in paths if p != pick))
        notes.append(f"several files for {name}; graded '{pick.name}', ignored {others}")
    elif pick.name != f"{name}.ipynb":
        notes.append(f"graded '{pick.name}' as {name}.ipynb")
    return pick, notes


def load(path: Path) -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse a submitted file, or say in plain words why it cannot be a notebook."""
    size = path.stat().st_size
    if size == 0:
        return None, "the file is empty (0 bytes)"
    if size > limits.MAX_FILE_MIB * 2**20:
        return None, f"the file is {size / 2**20:.0f} MiB, over the {limits.MAX_FILE_MIB:.0f} MiB limit"
    try:
        raw = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as error:
        return None, f"not valid JSON (line {error.lineno}: {error.msg}); was it saved as .ipynb?"
    try:
        nb = nbformat.reads(json.dumps(raw), as_version=4)
        nbformat.validate(nb)
    except Exception as error:  # nbformat raises several types
        return None, f"JSON but not a Jupyter notebook ({type(error).__name__}: {str(error)[:120]})"
    return nb, None


def dedupe_grade_ids(nb: nbformat.NotebookNode) -> list[str]:
    """Keep one cell per grade id: copy and paste keeps nbgrader metadata, which aborts a whole run.

    nbgrader itself keeps the last copy; so do we, and the earlier copies become ordinary cells.
    """
    notes, seen = [], set()
    for cell in reversed(nb.cells):
        meta = cell.metadata.get("nbgrader")
        if meta is not None and not meta:
            del cell.metadata["nbgrader"]  # an empty dict reads as an ancient schema and aborts the run
            continue
        gid = nbtools.grade_id(cell)
        if gid is None:
            continue
        if gid in seen:
            del cell.metadata["nbgrader"]
            notes.append(f"cell '{gid}' appeared twice; graded the last copy")
        seen.add(gid)
    return notes


def intake_student(folder: Path, names: list[str]) -> dict[str, Intake]:
    """Every notebook of one student: the file chosen, the parsed notebook or the problem."""
    files = sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    results = {}
    for name, paths in match_files(files, names).items():
        path, notes = choose(paths, name)
        item = Intake(name, path, notes=notes)
        if path is None:
            item.problem = "notebook missing (no file that looks like " f"{name}.ipynb)"
        else:
            item.nb, item.problem = load(path)
            if item.nb is not None:
                item.notes += dedupe_grade_ids(item.nb)
        results[name] = item
    return results
