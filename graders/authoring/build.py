"""``python -m graders build``: everything generated, from the sources (``sources/NN_name.py`` and
``sources/manifest.toml``), in this order:

1. ``solutions/`` from the sources (``graders.authoring.source``); every exercise must list its mistakes;
2. the helper modules that later notebooks import from the notebook that teaches them (d2l's ``#@save``),
   ``gpucourse/released.py``, the signature each exercise is released with (``graders.authoring.signatures``),
   and ``gpucourse/released_cells.py``, the released structure the hand-in check compares with
   (``graders.authoring.handin``);
3. ``notebooks/``, the student versions, with nbgrader's ``generate_assignment``;
4. ``samples/submissions/``, and the notebook tables of the README and of ``colab/README.md``.

A solution cell marked ``"gpucourse": {"save": "timing"}`` in its metadata gives its reference answer
(markers removed, code kept) to ``gpucourse/timing.py``; notebook 03's ``synchronize`` and ``time_ms``
are the cells marked so today. The notebook stays the single source of the answer, and its tests check
that a graded function was written in the notebook, so importing the generated one earns nothing.
"""

from __future__ import annotations

import ast
import tempfile
from pathlib import Path

from graders import course, nbtools
from graders.authoring import ColabConfig, handin, links, signatures, source
from graders.authoring.fixtures import FixtureError
from graders.authoring.samples import write_samples
from graders.errors import InputError
from graders.paths import NOTEBOOKS, REPO, SAMPLES, SOLUTIONS, notebook_names

PACKAGE = REPO / "gpucourse"
SAVE_KEY = "gpucourse"

#: What each generated module holds besides the saved cells: its docstring, and helpers built on them.
MODULES = {
    "timing": {
        "doc": "Timing that tells the truth on asynchronous devices, for notebooks 02, 04, 07 and 08.",
        "tail": '''
def median_ms(fn, device, warmup: int = 3, repeats: int = 10) -> float:
    """The median of :func:`time_ms`: one robust figure for a demonstration."""
    return statistics.median(time_ms(fn, device, warmup, repeats))
''',
        "imports": ["import statistics"],
    },
}


class BuildError(InputError):
    """A source the build cannot use, said so that its author can mend it (``python -m graders build`` exits 1)."""

    exit_code = 1

    def __init__(self, message: str):
        super().__init__(f"stopped, nothing after this was written: {message}")


def build(out: Path = NOTEBOOKS, names: list[str] | None = None, package: Path | None = None,
          config: ColabConfig | None = None) -> list[Path]:
    """:func:`build_all`, and a fixture that cannot be read or a missing source said as a :class:`BuildError`."""
    try:
        return build_all(out, names, package, config)
    except (FixtureError, FileNotFoundError) as exc:
        raise BuildError(str(exc)) from exc


def build_all(out: Path, names: list[str] | None, package: Path | None, config: ColabConfig | None) -> list[Path]:
    """Generate everything (see the module's docstring); return the files that changed.

    Building into the repository's ``notebooks/`` regenerates all of it. Building elsewhere (``out``)
    writes only the student notebooks there, from the committed ``solutions/``; the generated helper
    modules go into ``package`` when one is given. ``config``: the course's Colab configuration
    (default: ``colab/config.json`` as it is now).
    """
    config = config or ColabConfig.load()
    names = names or notebook_names()
    in_repo = Path(out).resolve() == NOTEBOOKS.resolve()
    changed = write_solutions(names, config) if in_repo else []
    if package is None and in_repo:
        package = PACKAGE
    changed += (write_saved(package) + signatures.write_released(package) + handin.write_released(package)
                if package is not None else [])
    changed += write_students(out, names)
    if in_repo:
        changed += write_samples_and_tables(config)
    return changed


def relink(repo: str | None = None, branch: str | None = None, package_ref: str | None = None,
           rebuild: bool = True) -> list[Path]:
    """Write the Colab configuration (when given) and bring every link in line with it; return changed files."""
    if repo or branch or package_ref:
        current = ColabConfig.load(links.CONFIG)
        links.write_config(repo or current.repo, branch or current.branch, package_ref or current.package_ref,
                           links.CONFIG)
    config = ColabConfig.load(links.CONFIG)
    changed = links.rewrite_text_files(config) + links.write_tables(config)
    changed += write_solutions(notebook_names(), config)  # badges and set-up cells: cheap, no nbgrader
    if rebuild:
        changed += build(config=config)
    return changed


def solution_text(name: str, config: ColabConfig | None = None) -> str:
    """What ``solutions/NAME.ipynb`` must hold, made from the source; the exercises' fixtures checked."""
    nb = nbtools.tidy(source.solution(name, config))
    try:
        mistakes, _ = source.fixture_lists(name)
    except FixtureError as exc:
        raise BuildError(f"{source.source_path(name).name}: {exc}") from None
    tests = set(nbtools.test_points(nb))
    for mistake in mistakes:
        unknown = set(mistake.loses) - tests
        if unknown:
            raise BuildError(f"{name}: mistake {mistake.key!r} loses {sorted(unknown)}, which are not test cells")
    bare = [gid for gid in source.reference_answers(nb) if not any(m.cell == gid for m in mistakes)]
    if bare:
        raise BuildError(f"{name}: exercise(s) {', '.join(bare)} list no mistakes: add a fixtures cell after their "
                         "tests (see docs/authoring.md)")
    import nbformat

    return nbformat.writes(nb) + "\n"


def write_solutions(names: list[str], config: ColabConfig | None = None) -> list[Path]:
    config = config or ColabConfig.load()
    changed = []
    for name in names:
        target = SOLUTIONS / f"{name}.ipynb"
        text = solution_text(name, config)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            changed.append(target)
    return changed


def write_samples_and_tables(config: ColabConfig | None = None) -> list[Path]:
    before = {p: p.read_bytes() for p in SAMPLES.rglob("*.ipynb")}
    changed = [p for p in write_samples(SAMPLES) if before.get(p) != p.read_bytes()]
    return changed + links.write_tables(config)


def write_students(out: Path, names: list[str]) -> list[Path]:
    """The student notebooks, made by nbgrader from ``solutions/``, into ``out``."""
    changed = []
    with tempfile.TemporaryDirectory(prefix="gpucourse-build-") as tmp:  # nbgrader wants a course folder
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


# -------------------------------------------------------------------------------------------------
# Helper modules generated from marked solution cells
# -------------------------------------------------------------------------------------------------
def saved_cells(module: str) -> list[tuple[str, str]]:
    """``(notebook, reference answer)`` of every solution cell saved to ``module``, in course order."""
    found = []
    for name in notebook_names():
        for cell in nbtools.read(SOLUTIONS / f"{name}.ipynb").cells:
            if cell.cell_type == "code" and (cell.metadata.get(SAVE_KEY) or {}).get("save") == module:
                found.append((name, nbtools.answer_from_solution(cell.source)))
    return found


def _split_imports(source: str) -> tuple[list[str], str]:
    """A cell's top-level import lines, and the rest of it."""
    tree = nbtools.parse_python(source)
    lines = source.splitlines()
    imports, drop = [], set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(ast.unparse(node))
            drop.update(range(node.lineno - 1, node.end_lineno))
    rest = "\n".join(line for i, line in enumerate(lines) if i not in drop).strip("\n")
    return imports, rest


def saved_module(module: str) -> str:
    """The text of ``gpucourse/<module>.py`` as the marked cells make it."""
    spec = MODULES[module]
    cells = saved_cells(module)
    if not cells:
        raise ValueError(f"no solution cell is marked {{'{SAVE_KEY}': {{'save': '{module}'}}}}")
    sources = sorted({nb for nb, _ in cells})
    imports, bodies = {"import torch", *spec["imports"]}, []
    for _nb, answer in cells:
        cell_imports, rest = _split_imports(answer)
        imports.update(cell_imports)
        bodies.append(rest)
    header = (f'"""{spec["doc"]}\n\n'
              f"GENERATED by ``python -m graders build`` from the reference answers of the cells marked\n"
              f"``\"{SAVE_KEY}\": {{\"save\": \"{module}\"}}`` in {', '.join(f'sources/{s}.py' for s in sources)}:\n"
              f"edit those cells, not this file. The notebook that teaches these grades them, and gives\n"
              f"nothing for importing them from here (see gpucourse.origin).\n"
              f'"""\n\n'
              f"from __future__ import annotations\n\n")
    stdlib = sorted(i for i in imports if not i.split()[1].startswith("torch"))
    third = sorted(i for i in imports if i.split()[1].startswith("torch"))
    text = header + "\n".join(stdlib) + "\n\n" + "\n".join(third) + "\n"
    for body in bodies + [spec["tail"].strip("\n")]:
        text += "\n\n" + body.rstrip() + "\n"
    return text


def write_saved(package: Path = PACKAGE) -> list[Path]:
    """Write every generated helper module into ``package``; return those that changed."""
    changed = []
    for module in MODULES:
        target = Path(package) / f"{module}.py"
        text = saved_module(module)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            changed.append(target)
    return changed
