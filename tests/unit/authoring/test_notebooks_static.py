"""What can be checked without running anything: generated files up to date, no outputs, ids, layout."""

from __future__ import annotations

import ast
import filecmp

import nbformat
import pytest

from graders import nbtools
from graders.authoring.build import build
from graders.authoring.samples import write_samples
from graders.paths import NOTEBOOKS, SAMPLES, SOLUTIONS, notebook_names

COMMITTED = sorted(SOLUTIONS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(SAMPLES.rglob("*.ipynb"))


def test_notebooks_are_numbered_in_the_order_the_manifest_lists_them():
    """A notebook's number is its place in the course, the order of sources/manifest.toml: 01, 02, ... with no gap
    or repeat, each one built. A ninth notebook is one source and one manifest entry, and no list here to edit."""
    names = notebook_names()
    assert len(names) >= 8, "the course spec's eight notebooks, at least"
    assert [name[:3] for name in names] == [f"{number:02d}_" for number in range(1, len(names) + 1)], names
    assert all((NOTEBOOKS / f"{name}.ipynb").exists() and (SOLUTIONS / f"{name}.ipynb").exists() for name in names)


def test_notebooks_folder_is_what_build_produces(tmp_path):
    build(tmp_path)
    for name in notebook_names():
        assert filecmp.cmp(tmp_path / f"{name}.ipynb", NOTEBOOKS / f"{name}.ipynb", shallow=False), (
            f"notebooks/{name}.ipynb is stale: run `python -m graders build`")
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(p.name for p in tmp_path.glob("*.ipynb"))


def test_samples_are_what_the_sources_produce(tmp_path):
    write_samples(tmp_path)
    for path in tmp_path.rglob("*.ipynb"):
        committed = SAMPLES / path.relative_to(tmp_path)
        assert committed.exists() and filecmp.cmp(path, committed, shallow=False), (
            f"{committed} is stale: run `python -m graders samples`")


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_committed_notebooks_are_clean(path):
    nb = nbtools.read(path)
    for cell in nb.cells:
        assert cell.get("id"), "every cell needs a stable id"
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"cell {cell.id} has outputs"
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids))
    assert path.read_text(encoding="utf-8") == nbformat.writes(nb) + "\n", "not in canonical layout"


#: Calls known to return None, so that IPython displays nothing after them (anything else it shows,
#: and nbgrader reads a displayed number as partial credit: ``round(x)`` would be a score).
RETURN_NONE = {"print", "torch._dynamo.reset"}


def ends_in_displayed_value(source: str) -> bool:
    """True when IPython would display the cell's last statement (an expression, not a known None call)."""
    body = ast.parse(source).body
    if not body or not isinstance(body[-1], ast.Expr):
        return False
    value = body[-1].value
    return not (isinstance(value, ast.Call) and ast.unparse(value.func) in RETURN_NONE)


@pytest.mark.parametrize("source, displayed", [
    ("x = 1.5\nround(x)", True), ("x = 1\nx", True), ("3", True), ("f()", True), ("obj.score()", True),
    ("print(1)", False), ("torch._dynamo.reset()", False), ("assert True", False), ("for i in []:\n    i", False),
])
def test_displayed_value_rule(source, displayed):
    assert ends_in_displayed_value(source) is displayed


@pytest.mark.parametrize("name", notebook_names())
def test_test_cells_never_end_in_a_displayed_value(name):
    """nbgrader reads a displayed number at the end of a test cell as partial credit."""
    nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    for cell in nb.cells:
        if nbtools.is_test_cell(cell):
            assert not ends_in_displayed_value(cell.source), f"{name}:{cell.id} ends in a displayed value"


@pytest.mark.parametrize("name", notebook_names())
def test_anatomy(name):
    """Spec section 3: badge, set-up cell first, exercises with tests, a summary pointing onwards."""
    from graders.authoring import setup_cell
    nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    assert "colab.research.google.com" in nb.cells[0].source
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert first_code.source == setup_cell().source, "the set-up cell is generated: run `python -m graders build`"
    assert nbtools.nbgrader_meta(first_code).get("locked")
    answers = [nbtools.grade_id(c) for c in nb.cells if nbtools.is_solution_cell(c)]
    tests = [nbtools.grade_id(c) for c in nb.cells if nbtools.is_test_cell(c)]
    assert answers and all(f"test_{a}" in tests for a in answers if not a.isupper())
    assert "summary" in nb.cells[-3].source.lower()
    assert nbtools.grade_id(nb.cells[-1]) == "handin" and nbtools.nbgrader_meta(nb.cells[-1]).get("locked"), \
        "the hand-in check is the last cell, read-only (graders/authoring/handin.py)"
