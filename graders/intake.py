"""From whatever a student handed in to one clean notebook per assignment.

People rename files (``Copy of 01_devices.ipynb``, ``01_devices (1).ipynb``, ``Untitled3.ipynb``),
hand in one zip, broken JSON or empty files, save through Colab (which may drop nbgrader's cell
metadata), paste graded cells twice, turn a test cell into markdown or delete it. Each problem
becomes either a repaired notebook (:func:`repair` matches the cells back to the released ones) or
a reason a person understands; nothing here raises for a bad submission.
"""

from __future__ import annotations

import ast
import copy
import datetime
import difflib
import json
import re
import uuid
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import limits, nbtools
from .paths import NOTEBOOKS


@dataclass
class Intake:
    """What was found for one student and one notebook."""
    notebook: str
    path: Path | None = None
    nb: nbformat.NotebookNode | None = None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    folder: Path | None = None  # the student's folder in SUBMISSIONS


@dataclass
class Candidate:
    """One file that may be a notebook: on disk, or a member of a zip."""
    name: str                 # file name alone
    label: str                # what a person recognises: 'sub.zip:work/01_devices.ipynb'
    mtime: float
    path: Path | None = None  # on disk
    data: bytes | None = None  # from a zip
    problem: str | None = None

    def read(self) -> bytes:
        return self.data if self.data is not None else self.path.read_bytes()

    def size(self) -> int:
        return len(self.data) if self.data is not None else self.path.stat().st_size


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


def choose(paths: list, name: str) -> tuple:
    """The file to grade when several claim the same notebook: the newest, then the exact name."""
    if not paths:
        return None, []

    def mtime(p):
        return p.mtime if isinstance(p, Candidate) else p.stat().st_mtime

    def label(p):
        return p.label if isinstance(p, Candidate) else p.name

    # The newest file wins (a second download is the later work); at equal times, the exact name.
    pick = max(paths, key=lambda p: (round(mtime(p)), _exact(p, name), p.name))
    notes = []
    if len(paths) > 1:
        others = ", ".join(sorted(label(p) for p in paths if p is not pick))
        notes.append(f"several files for {name}; graded '{label(pick)}', ignored {others} "
                     f"({why_chosen(pick, paths, name)})")
    elif not _exact(pick, name) or (isinstance(pick, Candidate) and pick.data is not None):
        notes.append(f"graded '{label(pick)}' as {name}.ipynb")
    return pick, notes


def why_chosen(pick, paths: list, name: str) -> str:
    """Why :func:`choose` took ``pick``, in words: it is the newest, or what broke the tie."""
    def mtime(p):
        return round(p.mtime if isinstance(p, Candidate) else p.stat().st_mtime)

    same = [p for p in paths if mtime(p) == mtime(pick)]
    if len(same) == 1:
        return "the newest"
    if _exact(pick, name) and sum(_exact(p, name) for p in same) == 1:
        return f"same time as the others; it has the released name {name}.ipynb"
    return "same time and no exact released name among them; the last name in alphabetical order"


# ---------------------------------------------------------------------------------------------
# Files: on disk and in zips
# ---------------------------------------------------------------------------------------------
def _looks_like_notebook(name: str) -> bool:
    low = name.lower()
    return low.endswith(".ipynb") or ".ipynb." in low or low.endswith(".ipynb.json") or low.endswith(".ipynb.txt")


def _zip_candidates(path: Path, budget: list[int]) -> tuple[list[Candidate], list[str]]:
    """Notebooks inside one zip, read into memory with size and count limits; never extracted."""
    notes, found = [], []
    if path.stat().st_size > limits.MAX_FILE_MIB * 2**20:
        return [], [f"ignored {path.name}: over the {limits.MAX_FILE_MIB:g} MiB limit"]
    try:
        with zipfile.ZipFile(path) as zf:
            members = [m for m in zf.infolist() if not m.is_dir()]
            if len(members) > limits.MAX_ZIP_FILES:
                notes.append(f"{path.name} holds {len(members)} files; looked at the first {limits.MAX_ZIP_FILES}")
                members = members[:limits.MAX_ZIP_FILES]
            for member in members:
                parts = Path(member.filename).parts
                base = parts[-1] if parts else ""
                if not _looks_like_notebook(base) or "__MACOSX" in parts or base.startswith("._") \
                        or ".ipynb_checkpoints" in parts:
                    continue
                label = f"{path.name}:{member.filename}"
                mtime = path.stat().st_mtime
                try:
                    mtime = datetime.datetime(*member.date_time).timestamp()
                except (ValueError, OverflowError):
                    pass
                cap = min(budget[0], int(limits.MAX_FILE_MIB * 2**20))
                if member.file_size > cap:
                    found.append(Candidate(base, label, mtime, problem=f"{label} is {member.file_size / 2**20:.0f} "
                                           f"MiB unpacked, over the limit"))
                    continue
                with zf.open(member) as f:
                    data = f.read(cap + 1)
                if len(data) > cap:
                    found.append(Candidate(base, label, mtime, problem=f"{label} unpacks to more than the limit"))
                    continue
                budget[0] -= len(data)
                found.append(Candidate(base, label, mtime, data=data))
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError) as error:
        notes.append(f"could not open {path.name} as a zip ({type(error).__name__}: {str(error)[:80]})")
    return found, notes


def gather(folder: Path) -> tuple[list[Candidate], list[str]]:
    """Every notebook-like file a student handed in: loose files first, then zip members."""
    candidates, notes = [], []
    files = sorted(p for p in Path(folder).rglob("*") if p.is_file() and not p.is_symlink()
                   and ".ipynb_checkpoints" not in p.parts and "__MACOSX" not in p.parts)
    budget = [int(limits.MAX_UNZIPPED_MIB * 2**20)]
    for path in files:
        if _looks_like_notebook(path.name) and not path.name.startswith("._"):
            candidates.append(Candidate(path.name, str(path.relative_to(folder)), path.stat().st_mtime, path=path))
    for path in files:
        if path.suffix.lower() == ".zip":
            found, zip_notes = _zip_candidates(path, budget)
            candidates += found
            notes += zip_notes
    return candidates, notes


def loads(data: bytes, label: str = "the file") -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse submitted bytes, or say in plain words why they cannot be a notebook."""
    if len(data) == 0:
        return None, "the file is empty (0 bytes)"
    if len(data) > limits.MAX_FILE_MIB * 2**20:
        return None, f"the file is {len(data) / 2**20:.0f} MiB, over the {limits.MAX_FILE_MIB:g} MiB limit"
    if not data.strip():
        return None, "the file holds only blank space"
    try:
        raw = json.loads(data.decode("utf-8-sig", errors="replace"))
    except json.JSONDecodeError as error:
        return None, f"not valid JSON (line {error.lineno}: {error.msg}); was it saved as .ipynb?"
    except RecursionError:
        return None, "not a usable notebook (JSON nested too deeply)"
    if not isinstance(raw, dict) or "cells" not in raw:
        return None, "JSON but not a Jupyter notebook (no cells)"
    try:
        nb = nbformat.reads(json.dumps(raw), as_version=4)
        _fix_ids(nb)
        nbformat.validate(nb)
    except Exception as error:  # nbformat raises several types
        return None, f"JSON but not a Jupyter notebook ({type(error).__name__}: {str(error)[:120]})"
    return nb, None


def load(path: Path) -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse a submitted file, or say in plain words why it cannot be a notebook."""
    size = path.stat().st_size
    if size > limits.MAX_FILE_MIB * 2**20:
        return None, f"the file is {size / 2**20:.0f} MiB, over the {limits.MAX_FILE_MIB:g} MiB limit"
    return loads(path.read_bytes())


def _fix_ids(nb) -> None:
    """Every cell gets a unique, valid id (Colab and copy-paste make duplicates or odd ones)."""
    nb.nbformat_minor = max(int(nb.get("nbformat_minor", 0)), 5)
    seen = set()
    for cell in nb.cells:
        cid = cell.get("id")
        if not isinstance(cid, str) or not re.fullmatch(r"[a-zA-Z0-9-_]{1,64}", cid) or cid in seen:
            cid = uuid.uuid4().hex[:12]
        cell["id"] = cid
        seen.add(cid)
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = nbformat.NotebookNode()
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])


def dedupe_grade_ids(nb: nbformat.NotebookNode) -> list[str]:
    """Keep one cell per grade id: copy and paste keeps nbgrader metadata, which aborts a whole run.

    nbgrader itself keeps the last copy; so do we, and the earlier copies become ordinary cells.
    (:func:`repair` does this and more when the released notebook is at hand.)
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


# ---------------------------------------------------------------------------------------------
# Matching a submission's cells back to the released notebook
# ---------------------------------------------------------------------------------------------
def _defined_names(source: str) -> set[str]:
    try:
        tree = nbtools.parse_python(source)
    except SyntaxError:
        return set(re.findall(r"^(?:def|class)\s+([A-Za-z_]\w*)", source, flags=re.M))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _similarity(a: str, b: str) -> float:
    """Share of lines in common (0 to 1), after trailing blanks are dropped."""
    a, b = _norm(a), _norm(b)
    if a == b:
        return 1.0
    lines_a = [line.strip() for line in a.splitlines() if line.strip()]
    lines_b = [line.strip() for line in b.splitlines() if line.strip()]
    if not lines_a or not lines_b:
        return 0.0
    matcher = difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False)
    if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
        return 0.0
    return matcher.ratio()


def _score(rel, sub) -> float:
    """How surely submission cell ``sub`` is released cell ``rel`` (0: not at all)."""
    rid, sid = nbtools.grade_id(rel), nbtools.grade_id(sub)
    score = 0.0
    if rid and sid == rid:
        score += 3.0
    if rel.get("id") and sub.get("id") == rel.get("id"):
        score += 1.0
    if nbtools.is_solution_cell(rel):
        names = _defined_names(rel.source)
        if names and names <= _defined_names(sub.source) and sub.cell_type == "code":
            score += 2.0
        else:
            score += 1.5 * _similarity(rel.source, sub.source)
    elif rel.cell_type == "markdown" and sub.cell_type == "markdown":
        score += _similarity(rel.source, sub.source)
    else:
        sim = _similarity(rel.source, sub.source)
        if sim >= 0.6:
            score += 2.0 * sim
    return score if score >= 0.9 else 0.0


def align(release: list, cells: list) -> list[tuple[int, int]]:
    """Order-keeping best matching of released cells to submitted cells (pairs of indices).

    Dynamic programming over both lists; among equal matchings the later submitted copy wins,
    as in nbgrader's own handling of duplicated cells.
    """
    n, m = len(release), len(cells)
    score = [[_score(r, c) for c in cells] for r in release]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            options = [best[i + 1][j], best[i][j + 1]]
            if score[i][j] > 0:
                options.append(score[i][j] + best[i + 1][j + 1])
            best[i][j] = max(options)
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if score[i][j] > 0 and abs(best[i][j] - (score[i][j] + best[i + 1][j + 1])) < 1e-9 \
                and not abs(best[i][j] - best[i][j + 1]) < 1e-9:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif abs(best[i][j] - best[i][j + 1]) < 1e-9:
            j += 1  # skipping a submitted cell first keeps the *later* copy of a duplicate
        else:
            i += 1
    return pairs


def _strip_grading(cell) -> None:
    cell.metadata.pop("nbgrader", None)
    cell.metadata.pop("deletable", None)
    cell.metadata.pop("editable", None)


def repair(nb: nbformat.NotebookNode, release: nbformat.NotebookNode) -> list[str]:
    """Give ``nb`` the released notebook's graded cells back, in place; return what was repaired.

    Each submitted cell is matched to a released cell by grade id, cell id and content (answer cells
    by the function they define). Matched test and read-only cells become the released cell (nbgrader
    would put their source back anyway); matched answer cells keep the student's code under the
    released metadata; a test or read-only cell with no match is put back where it was released;
    every other cell is kept as an ordinary cell, without nbgrader metadata.
    """
    _fix_ids(nb)
    rel_cells, sub_cells = release.cells, nb.cells
    pairs = dict(align(rel_cells, sub_cells))  # release index -> submission index
    by_sub = {j: i for i, j in pairs.items()}
    notes, out = [], []
    restored_meta, changed_tests, to_code = [], [], []

    def released_copy(i):
        cell = copy.deepcopy(rel_cells[i])
        return cell

    out_state = {"next_rel": 0}

    def flush_missing(until):
        """Put back the unmatched graded cells of the release before release index ``until``."""
        for i in range(out_state["next_rel"], until):
            rel = rel_cells[i]
            if i in pairs:
                continue
            meta = nbtools.nbgrader_meta(rel)
            if nbtools.is_test_cell(rel) or (meta.get("locked") and not meta.get("solution")):
                out.append(released_copy(i))
                notes.append(f"cell '{nbtools.grade_id(rel)}' was missing; put the released one back")
        out_state["next_rel"] = max(out_state["next_rel"], until)

    for j, cell in enumerate(sub_cells):
        i = by_sub.get(j)
        if i is None:
            gid = nbtools.grade_id(cell)
            if gid:
                notes.append(f"a cell marked '{gid}' did not match any released cell; ran it as an ordinary cell")
            _strip_grading(cell)
            out.append(cell)
            continue
        flush_missing(i)
        out_state["next_rel"] = i + 1
        rel = rel_cells[i]
        rid, sid = nbtools.grade_id(rel), nbtools.grade_id(cell)
        if rid is None:
            _strip_grading(cell)
            out.append(cell)
            continue
        if sid != rid:
            restored_meta.append(rid if not sid else f"{sid}->{rid}")
        if nbtools.is_solution_cell(rel):
            new = copy.deepcopy(rel)
            new.source = cell.source
            if rel.cell_type == "code":
                new.outputs, new.execution_count = [], None
            if cell.cell_type != rel.cell_type:
                to_code.append(rid)
            out.append(new)
        else:
            if cell.cell_type != rel.cell_type:
                to_code.append(rid)
            elif nbtools.is_test_cell(rel) and _norm(cell.source) != _norm(rel.source):
                changed_tests.append(rid)
            out.append(released_copy(i))
    flush_missing(len(rel_cells))
    if restored_meta:
        notes.append("nbgrader's marks were missing or changed on " + ", ".join(restored_meta) + "; matched "
                     "them to the released cells")
    if changed_tests:
        notes.append("edited test cell(s) " + ", ".join(changed_tests) + ": graded with the released tests")
    if to_code:
        notes.append("cell(s) " + ", ".join(to_code) + " had become markdown; graded as released code cells")
    gids = [nbtools.grade_id(c) for c in out if nbtools.grade_id(c)]
    dupes = {g for g in gids if gids.count(g) > 1}
    for cell in out:  # never two cells with one grade id (nbgrader issue 1083 aborts the run)
        if nbtools.grade_id(cell) in dupes and not any(cell is rel for rel in rel_cells):
            _strip_grading(cell)
    nb.cells = out
    nb.metadata["kernelspec"] = copy.deepcopy(release.metadata.get("kernelspec", nb.metadata.get("kernelspec", {})))
    _fix_ids(nb)
    return notes


def release_notebook(name: str, root: Path | None = None) -> nbformat.NotebookNode:
    """The released student notebook: the course folder's copy when given, else ``notebooks/``."""
    path = (Path(root) / "release" / name / f"{name}.ipynb") if root else NOTEBOOKS / f"{name}.ipynb"
    return nbtools.read(path)


def content_match(nb, releases: dict[str, nbformat.NotebookNode]) -> str | None:
    """The released notebook a renamed file (``Untitled3.ipynb``) is a copy of, by its cells."""
    best, best_score = None, 0.0
    for name, rel in releases.items():
        graded = [c for c in rel.cells if nbtools.grade_id(c)]
        if not graded:
            continue
        hits = sum(1 for r in graded if any(_score(r, c) >= 1.5 for c in nb.cells))
        frac = hits / len(graded)
        if frac > best_score:
            best, best_score = name, frac
    return best if best_score >= 0.5 else None


def match_candidates(candidates: list[Candidate], names: list[str]) -> dict[str, list[Candidate]]:
    """The candidates that claim each released notebook: by file name, else by content."""
    found = match_files(candidates, names)
    matched_ids = {id(c) for group in found.values() for c in group}
    unmatched = [c for c in candidates if id(c) not in matched_ids and c.problem is None]
    if unmatched:  # renamed beyond recognition: match by content to a notebook still missing
        releases = {}
        for name in names:
            try:
                releases[name] = release_notebook(name)
            except OSError:
                continue
        for cand in unmatched:
            nb, problem = loads(cand.read()) if cand.size() <= limits.MAX_FILE_MIB * 2**20 else (None, "big")
            if nb is None:
                continue
            name = content_match(nb, releases)
            if name and not found[name]:
                found[name].append(cand)
    return found


def intake_student(folder: Path, names: list[str]) -> dict[str, Intake]:
    """Every notebook of one student: the file chosen, the parsed notebook or the problem."""
    candidates, folder_notes = gather(folder)
    found = match_candidates(candidates, names)
    results = {}
    for name, cands in found.items():
        pick, notes = choose(cands, name)
        item = Intake(name, pick.path if pick else None, notes=notes, folder=Path(folder))
        if pick is None:
            item.problem = "notebook missing (no file that looks like " f"{name}.ipynb)"
            if folder_notes:
                item.problem += "; " + "; ".join(folder_notes)
        elif pick.problem:
            item.problem = pick.problem
        else:
            item.nb, item.problem = loads(pick.read())
            if item.nb is not None:
                item.notes += dedupe_grade_ids(item.nb)
        results[name] = item
    return results
