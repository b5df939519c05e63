"""Intake, a student's files: whatever a student handed in, to one clean notebook per assignment.

People rename files (``Copy of 01_devices.ipynb``, ``01_devices (1).ipynb``, ``Untitled3.ipynb``),
hand in one zip, broken JSON or empty files, save through Colab (which may drop nbgrader's cell
metadata), paste graded cells twice, turn a test cell into markdown or delete it. Each problem
becomes either a repaired notebook (``graders.intake.repair`` matches the cells back to the released ones) or
a reason a person understands; nothing here raises for a bad submission.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from graders import nbtools
from graders.intake.files import Candidate, gather, loads
from graders.intake.repair import cell_score, dedupe_grade_ids
from graders.limits import Limits
from graders.paths import NOTEBOOKS


@dataclass
class Intake:
    """What was found for one student and one notebook."""
    notebook: str
    path: Path | None = None
    nb: nbformat.NotebookNode | None = None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    folder: Path | None = None  # the student's folder in SUBMISSIONS
    digest: str | None = None  # sha256 of the bytes read: a rerun skips the pair when they and its row are unchanged

    def copy_timestamp(self, folder: Path) -> None:
        """nbgrader's ``timestamp.txt`` beside the hand-in (``collect`` writes one) into ``folder``, if there is one."""
        stamp = Path(self.path).parent / "timestamp.txt" if self.path is not None else None
        if stamp is not None and stamp.is_file():
            shutil.copy(stamp, Path(folder) / "timestamp.txt")


def normalise_name(filename: str) -> str:
    """``'Copy of 01_Devices (2).ipynb'`` -> ``'01_devices'``: what a browser or Colab did, undone."""
    stem = Path(filename).name
    stem = re.sub(r"(\.ipynb)?(\.json|\.txt)?$", "", stem, flags=re.I)
    stem = re.sub(r"\.ipynb", "", stem, flags=re.I)
    stem = re.sub(r"^(copy of |kopie von |copie de |copia de )+", "", stem, flags=re.I)
    stem = re.sub(r"(\s*\(\d+\)|\s*-\s*copy|_copy|\s+copy|-checkpoint|\s*\[\d+\])+$", "", stem, flags=re.I)
    return re.sub(r"[\s\-]+", "_", stem.strip()).lower()


def name_matches(filename: str, name: str) -> bool:
    norm = normalise_name(filename)
    return norm == name or norm.startswith(name) or norm == name.split("_", 1)[-1]


def match_files(files: list, names: list[str]) -> dict[str, list]:
    """Group a student's files (paths or candidates) by the released notebook each one copies."""
    found: dict[str, list] = {name: [] for name in names}
    for item in files:
        filename = item.name
        for name in names:
            if name_matches(filename, name):
                found[name].append(item)
                break
    return found


def _exact(item, name: str) -> bool:
    return item.name == f"{name}.ipynb"


def _mtime(item) -> int:
    """A file's (or a candidate's) modification time in whole seconds: zips and copies keep no finer."""
    return round(item.mtime if isinstance(item, Candidate) else item.stat().st_mtime)


def _label(item) -> str:
    return item.label if isinstance(item, Candidate) else item.name


def choose(paths: list, name: str) -> tuple:
    """The file to grade when several claim the same notebook: the newest, then the exact name."""
    if not paths:
        return None, []
    # The newest file wins (a second download is the later work); at equal times, the exact name.
    pick = max(paths, key=lambda p: (_mtime(p), _exact(p, name), p.name))
    notes = []
    if len(paths) > 1:
        others = ", ".join(sorted(_label(p) for p in paths if p is not pick))
        notes.append(f"several files for {name}; graded '{_label(pick)}', ignored {others} "
                     f"({why_chosen(pick, paths, name)})")
    elif not _exact(pick, name) or (isinstance(pick, Candidate) and pick.data is not None):
        notes.append(f"graded '{_label(pick)}' as {name}.ipynb")
    return pick, notes


def why_chosen(pick, paths: list, name: str) -> str:
    """Why :func:`choose` took ``pick``, in words: it is the newest, or what broke the tie."""
    same = [p for p in paths if _mtime(p) == _mtime(pick)]
    if len(same) == 1:
        return "the newest"
    if _exact(pick, name) and sum(_exact(p, name) for p in same) == 1:
        return f"same time as the others; it has the released name {name}.ipynb"
    return "same time and no exact released name among them; the last name in alphabetical order"


def release_notebook(name: str, root: Path | None = None) -> nbformat.NotebookNode:
    """The released student notebook: the course folder's ``release/`` copy when it has one, else ``notebooks/``.

    A course graded from an instructor's own folder releases its own version; a course this grader makes
    releases the one built from ``solutions/``, which is ``notebooks/`` too.
    """
    released = Path(root) / "release" / name / f"{name}.ipynb" if root else None
    return nbtools.read(released if released is not None and released.is_file() else NOTEBOOKS / f"{name}.ipynb")


def content_match(nb, releases: dict[str, nbformat.NotebookNode]) -> str | None:
    """The released notebook a renamed file (``Untitled3.ipynb``) is a copy of, by its cells."""
    best, best_score = None, 0.0
    for name, rel in releases.items():
        graded = [c for c in rel.cells if nbtools.grade_id(c)]
        if not graded:
            continue
        hits = sum(1 for r in graded if any(cell_score(r, c) >= 1.5 for c in nb.cells))
        frac = hits / len(graded)
        if frac > best_score:
            best, best_score = name, frac
    return best if best_score >= 0.5 else None


def match_candidates(candidates: list[Candidate], names: list[str], limits: Limits,
                     course: Path | None = None, twins: dict | None = None) -> dict[str, list[Candidate]]:
    """The candidates that claim each released notebook: by file name, else by content.

    Content is compared with the release of ``course`` (the course folder being graded), else ``notebooks/``.
    A renamed file whose cells copy a notebook some file already claims by name is not graded (the name is the
    student's word), but it goes into ``twins[name]`` when ``twins`` is given, so that the row can say so.
    """
    found = match_files(candidates, names)
    matched_ids = {id(c) for group in found.values() for c in group}
    unmatched = [c for c in candidates if id(c) not in matched_ids and c.problem is None]
    if unmatched:  # renamed beyond recognition: match by content to a notebook still missing
        releases = {}
        for name in names:
            try:
                releases[name] = release_notebook(name, course)
            except OSError:
                continue
        for cand in unmatched:
            small = cand.size() <= limits.max_file_mib * 2**20
            nb = loads(cand.read(), limits=limits)[0] if small else None
            if nb is None:
                continue
            name = content_match(nb, releases)
            if name and not found[name]:
                found[name].append(cand)
            elif name and twins is not None:
                twins.setdefault(name, []).append(cand)
    return found


def intake_student(folder: Path, names: list[str], limits: Limits | None = None,
                   course: Path | None = None) -> dict[str, Intake]:
    """Every notebook of one student: the file chosen, the parsed notebook or the problem.

    ``limits``: the run's (default: :meth:`Limits.from_env`); ``course``: the course folder whose release a
    renamed file is matched against by content (default: ``notebooks/``).
    """
    limits = limits or Limits.from_env()
    candidates, folder_notes = gather(folder, limits)
    twins: dict[str, list[Candidate]] = {}
    found = match_candidates(candidates, names, limits, course, twins)
    results = {}
    for name, cands in found.items():
        pick, notes = choose(cands, name)
        notes += [f"also handed in '{_label(t)}', a copy of {name} by its cells: not graded (the file named "
                  f"after {name} was)" for t in twins.get(name, [])]
        item = Intake(name, pick.path if pick else None, notes=notes, folder=Path(folder))
        if pick is None:
            item.problem = "notebook missing (no file that looks like " f"{name}.ipynb)"
            if folder_notes:
                item.problem += "; " + "; ".join(folder_notes)
        elif pick.problem:
            item.problem = pick.problem
        else:
            data = pick.read()
            item.digest = hashlib.sha256(data).hexdigest()
            item.nb, item.problem = loads(data, limits=limits)
            if item.nb is not None:
                item.notes += dedupe_grade_ids(item.nb)
        if item.problem and item.notes:  # a failed row is all the instructor sees: the other files stay named
            item.problem = "; ".join([item.problem] + item.notes)
        results[name] = item
    return results
