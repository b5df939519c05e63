"""The cells of a notebook as saved, as nbgrader marks them: what the hand-in check (``gpucourse.handin``) reads.

A notebook here is a dict as its ``.ipynb`` file holds it (Colab's ``get_ipynb`` gives the same); nothing needs
nbformat or nbgrader, which a student's runtime may lack.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re

#: The grade id of the hand-in cell (the notebook's last cell) and what it calls.
HANDIN_ID = "handin"
RELEASE_ARG = re.compile(r"""release\s*=\s*["']([^"']+)["']""")
NAME_ARG = re.compile(r"""check_this_notebook\(\s*["']([0-9]{2}_[a-z0-9_]+)["']""")
#: Set in the kernel that runs the copy (the hand-in cell there does nothing), and by the grader's own kernels.
NESTED_ENV = "GPUCOURSE_HANDIN"


class NotCourseNotebook(ValueError):
    """The file is not a notebook of this course (or not a notebook at all): said in one line."""


def source_of(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source or "")


def nbgrader_meta(cell) -> dict:
    meta = (cell.get("metadata") or {}).get("nbgrader") or {}
    return meta if isinstance(meta, dict) else {}


def grade_id(cell) -> str | None:
    gid = nbgrader_meta(cell).get("grade_id")
    return gid if isinstance(gid, str) else None


def kind(cell) -> str:
    """``"answer"``, ``"test"``, ``"read-only"`` or ``""`` (a cell nbgrader does not mark)."""
    meta = nbgrader_meta(cell)
    if meta.get("solution"):
        return "answer"
    if meta.get("grade"):
        return "test"
    return "read-only" if meta.get("locked") else ""


def normalized(source: str) -> str:
    """A cell's source with what editors and Colab change without asking left out: trailing blanks, blank lines."""
    return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())


def checksum(cell) -> str:
    """nbgrader's checksum of a locked cell (``nbgrader.utils.compute_checksum``: source, type, grade, solution,
    locked, grade id, points), over the normalized source."""
    meta = nbgrader_meta(cell)
    digest = hashlib.md5()
    for part in (normalized(source_of(cell)), cell.get("cell_type", ""), str(bool(meta.get("grade"))),
                 str(bool(meta.get("solution"))), str(bool(meta.get("locked"))), str(meta.get("grade_id", ""))):
        digest.update(part.encode("utf-8"))
    if meta.get("grade"):
        digest.update(str(float(meta.get("points", 0))).encode("utf-8"))
    return digest.hexdigest()


def defined_names(source: str) -> set[str]:
    """The names a cell binds in the notebook's namespace (functions, classes, assignments, also inside ``with``,
    ``if``, ``for`` and ``try`` blocks, not inside functions); none when it does not parse."""
    text = "\n".join("pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    names, todo = set(), list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.stmt, ast.excepthandler)):
            todo += [c for c in ast.iter_child_nodes(node) if isinstance(c, (ast.stmt, ast.excepthandler))]
    return names


def as_notebook(data) -> dict:
    """``data`` when it is a notebook (nbformat 4, a list of cells); else :class:`NotCourseNotebook`."""
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list) or data.get("nbformat") != 4:
        raise NotCourseNotebook("not a Jupyter notebook (nbformat 4)")
    if not all(isinstance(c, dict) for c in data["cells"]):
        raise NotCourseNotebook("not a Jupyter notebook: a cell is not an object")
    return data


def structure_entry(cell) -> dict:
    """What the release records of one course cell (``gpucourse.released_cells``): no source, no answer."""
    entry = {"grade_id": grade_id(cell), "kind": kind(cell), "cell_type": cell.get("cell_type")}
    if entry["kind"] == "answer":
        entry["defines"] = sorted(defined_names(source_of(cell)))
    else:
        entry["checksum"] = checksum(cell)
    if entry["kind"] == "test":
        entry["points"] = float(nbgrader_meta(cell).get("points", 0))
    return entry


def release_id(version: str, entries: list[dict]) -> str:
    """``VERSION-DIGEST``: the helper package's version and a digest of the course cells but the hand-in cell."""
    kept = [e for e in entries if e["grade_id"] != HANDIN_ID]
    digest = hashlib.sha256(json.dumps(kept, sort_keys=True).encode("utf-8")).hexdigest()[:10]
    return f"{version}-{digest}"
