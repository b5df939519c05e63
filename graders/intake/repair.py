"""Intake, repair: a submission's cells matched back to the released notebook, whatever Colab or the student did.

Answer cells are found by the function they define, test cells by their content; a test cell that was
edited, turned into markdown, renamed or pasted twice is graded as released; a deleted one is put back;
cell ids are made unique and valid.
"""

from __future__ import annotations

import ast
import copy
import difflib
import re
import uuid

import nbformat

from graders import nbtools


def fix_ids(nb) -> None:
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


def cell_score(rel, sub) -> float:
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
    score = [[cell_score(r, c) for c in cells] for r in release]
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
    fix_ids(nb)
    rel_cells, sub_cells = release.cells, nb.cells
    pairs = dict(align(rel_cells, sub_cells))  # release index -> submission index
    by_sub = {j: i for i, j in pairs.items()}
    notes, out = [], []
    restored_meta, changed_tests, to_code = [], [], []

    next_rel = 0  # the first released cell not yet placed in ``out``

    def flush_missing(until):
        """Put back the unmatched graded cells of the release before release index ``until``."""
        nonlocal next_rel
        for i in range(next_rel, until):
            rel = rel_cells[i]
            if i in pairs:
                continue
            meta = nbtools.nbgrader_meta(rel)
            if nbtools.is_test_cell(rel) or (meta.get("locked") and not meta.get("solution")):
                out.append(copy.deepcopy(rel))
                notes.append(f"cell '{nbtools.grade_id(rel)}' was missing; put the released one back")
        next_rel = max(next_rel, until)

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
        next_rel = i + 1
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
            out.append(copy.deepcopy(rel))
    flush_missing(len(rel_cells))
    if restored_meta:
        notes.append("nbgrader's marks were missing or changed on " + ", ".join(restored_meta) + "; matched "
                     "them to the released cells")
    if changed_tests:
        notes.append("edited test cell(s) " + ", ".join(changed_tests) + ": graded with the released tests")
    if to_code:
        notes.append("cell(s) " + ", ".join(to_code) + " had become markdown; graded as released code cells")
    nb.cells = out
    nb.metadata["kernelspec"] = copy.deepcopy(release.metadata.get("kernelspec", nb.metadata.get("kernelspec", {})))
    fix_ids(nb)
    return notes


