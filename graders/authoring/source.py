"""Read a notebook's one source, ``sources/NN_name.py`` (jupytext's percent format).

The source holds the notebook's cells (nbgrader metadata in the cell headers, ``### BEGIN/END SOLUTION``
and ``### BEGIN/END HIDDEN TESTS`` as nbgrader reads them) and, after each exercise, an author-only cell
with its mistakes and alternatives (``graders.authoring.fixtures``). What every notebook shares is not in
the source but made here, from ``sources/manifest.toml`` and ``colab/config.json``:

- the title line and the Colab badge, at the top of the first cell;
- the install part of the set-up cell (the source keeps only the lines from ``DEVICE, QUICK = setup()`` on,
  which run as they are in a JupyterLab where ``gpucourse`` is installed);
- the "Next" link at the end of the last cell;
- the notebook's metadata (kernel, Colab's GPU runtime).

A cell's id is its ``id`` header, else its nbgrader ``grade_id``: ids stay stable and readable.
"""

from __future__ import annotations

import functools
from pathlib import Path

from graders import authoring, nbtools
from graders.authoring import fixtures, handin
from graders.authoring.fixtures import Alternative, Mistake
from graders.paths import SOURCES, manifest

FIXTURES_KEY = "fixtures"  # cell metadata of an author-only cell: the answer cell whose fixtures it lists


def source_path(name: str) -> Path:
    return SOURCES / f"{name}.py"


def entry(name: str) -> dict:
    entries = manifest()
    for index, item in enumerate(entries):
        if item["name"] == name:
            return {**item, "following": entries[index + 1] if index + 1 < len(entries) else None}
    raise KeyError(f"{name} is not in sources/manifest.toml")


@functools.lru_cache(maxsize=32)
def _read(path: Path, mtime_ns: int):
    import jupytext

    return jupytext.read(path, fmt="py:percent")


def read_text_notebook(name: str):
    """The source as jupytext reads it (a fresh copy: callers may change it)."""
    import copy

    path = source_path(name)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: every notebook in sources/manifest.toml needs its source")
    return copy.deepcopy(_read(path, path.stat().st_mtime_ns))


def title_line(item: dict) -> str:
    return f"# {item['name'][:2]} · {item['title']}"


def next_paragraph(item: dict) -> str | None:
    following = item["following"]
    if following is None:
        return None
    text = f"**Next: [{following['name'][:2]} · {following['short']}]({following['name']}.ipynb).**"
    return text + (f" {item['next']}" if item.get("next") else "")


def solution(name: str, config: authoring.ColabConfig | None = None):
    """The solution notebook (``solutions/NAME.ipynb``) the source makes, author-only cells left out."""
    config = config or authoring.ColabConfig.load()
    item = entry(name)
    cells = []
    for cell in read_text_notebook(name).cells:
        if FIXTURES_KEY in cell.metadata:
            continue
        cell_id = cell.metadata.pop("id", None) or nbtools.grade_id(cell)
        if not cell_id:
            raise ValueError(f"{name}: a cell without an id header or grade_id:\n{cell.source[:200]}")
        made = (authoring.code if cell.cell_type == "code" else authoring.md)(cell_id, "")
        made.source, made.metadata = cell.source, cell.metadata
        cells.append(made)
    if not cells or cells[0].cell_type != "markdown":
        raise ValueError(f"{name}: the first cell must be markdown (the build puts the title in it)")
    cells[0].source = f"{title_line(item)}\n\n{authoring.badge(name, config=config)}\n\n{cells[0].source}"
    for index, cell in enumerate(cells):
        if cell.id == "setup":
            cells[index] = authoring.setup_cell(authoring.setup_extras(cell.source), config)
    link = next_paragraph(item)
    if link:
        cells[-1].source = f"{cells[-1].source.rstrip()}\n\n{link}"
    cells += handin.cells(name, cells)  # the hand-in check, last
    return authoring.notebook(cells, colab_name=f"{name}.ipynb")


def reference_answers(nb) -> dict[str, str]:
    """``{answer cell grade_id: the reference answer without solution markers}``."""
    return {nbtools.grade_id(c): nbtools.answer_from_solution(c.source)
            for c in nb.cells if nbtools.is_solution_cell(c)}


def fixture_cells(name: str) -> dict[str, str]:
    """``{answer cell: the text of its fixtures cell}``."""
    return {cell.metadata[FIXTURES_KEY]: cell.source for cell in read_text_notebook(name).cells
            if FIXTURES_KEY in cell.metadata}


def fixture_lists(name: str) -> tuple[list[Mistake], list[Alternative]]:
    """Every mistake and every alternative the source lists, in source order."""
    path = source_path(name)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: every notebook in sources/manifest.toml needs its source")
    mistakes, alternatives = _fixture_lists(name, path.stat().st_mtime_ns)
    return list(mistakes), list(alternatives)


@functools.lru_cache(maxsize=32)
def _fixture_lists(name: str, mtime_ns: int) -> tuple[tuple[Mistake, ...], tuple[Alternative, ...]]:
    """Read once per version of the source: the mistakes and the alternatives are asked for apart."""
    text_notebook = read_text_notebook(name)
    answers = reference_answers(text_notebook)  # the build adds nothing to the answer cells
    mistakes, alternatives = [], []
    for cell in text_notebook.cells:
        cell_name = cell.metadata.get(FIXTURES_KEY)
        if cell_name is None:
            continue
        if cell_name not in answers:
            raise fixtures.FixtureError(f"{name}: a fixtures cell names {cell_name!r}, which is not an answer cell")
        found = fixtures.parse(cell.source, cell_name, answers[cell_name])
        mistakes += found[0]
        alternatives += found[1]
    return tuple(mistakes), tuple(alternatives)
