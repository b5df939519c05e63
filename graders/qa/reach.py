"""Which test cells an answer can change, read from the code: the judge runs only those for a fixture.

A test cell's outcome depends on the answer cell swapped in only through the names it reaches: the
names in its code, and, through every function, class and assignment the notebook defines at top
level, the names those use in turn. A test that reaches none of the names the reference answer or
the fixture defines gets the reference's outcome without being run. A test that looks names up
dynamically (``globals()``, ``eval``, ``get_ipython`` ...) is always run, as is every test for code
that does not parse.
"""

from __future__ import annotations

import ast
import symtable

from graders import nbtools
from graders.grading.cell_syntax import parse_cell

DYNAMIC = {"globals", "vars", "locals", "eval", "exec", "get_ipython", "__import__", "__main__", "importlib"}


def free_names(code: str) -> set[str]:
    """The module-level names ``code`` reads but does not bind itself (a function's parameters and
    locals, and the cell's own top-level names, are not free)."""
    top = symtable.symtable(code, "<cell>", "exec")
    used: set[str] = set()

    def walk(table, outermost: bool) -> None:
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (outermost or symbol.is_global()):
                used.add(symbol.get_name())
        for child in table.get_children():
            walk(child, False)

    walk(top, True)
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    tree = nbtools.parse_python(code)
    dynamic = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in DYNAMIC}
    return (used - bound) | (used & DYNAMIC) | dynamic


def defined(tree: ast.Module, modules: bool = True) -> dict[str, set[str]]:
    """``{top-level name: the free names of the statement that binds it}`` for one cell (without the names
    ``import x`` binds to a module, unless ``modules``)."""
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if not modules and isinstance(node, ast.Import):
            continue
        statement = ast.Module(body=[node], type_ignores=[])
        bound = {s.get_name() for s in symtable.symtable(ast.unparse(statement), "<s>", "exec").get_symbols()
                 if s.is_assigned() or s.is_imported()}
        uses = free_names(ast.unparse(statement))
        for name in bound:
            found.setdefault(name, set()).update(uses)
    return found


class Reach:
    """The notebook's definitions, to answer "can swapping these answers change this test?"."""

    def __init__(self, sources: list[str]):
        self.uses: dict[str, set[str]] = {}
        self._reached: dict[str, set[str] | None] = {}  # each test cell's, asked once per fixture
        for source in sources:
            tree = parse_cell(source)
            for name, used in (defined(tree) if tree is not None else {}).items():
                self.uses.setdefault(name, set()).update(used)

    def reached(self, source: str) -> set[str] | None:
        """Every name ``source`` reaches (None: it does not parse, so it may reach anything)."""
        if source not in self._reached:
            tree = parse_cell(source)
            self._reached[source] = None if tree is None else self._closure(free_names(ast.unparse(tree)))
        return self._reached[source]

    def _closure(self, names: set[str]) -> set[str]:
        seen, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(self.uses.get(name, ()))
        return seen

    def can_change(self, test: str, names: set[str] | None) -> bool:
        """Can a swap that changes ``names`` (see :func:`changed`; None: anything) change ``test``?"""
        reached = self.reached(test)
        return names is None or reached is None or bool(reached & (names | DYNAMIC))


def changed(reference: str, fixture: str) -> set[str] | None:
    """The names putting ``fixture`` where ``reference`` was can rebind (None: one does not parse)."""
    trees = [parse_cell(reference), parse_cell(fixture)]
    if None in trees:
        return None
    # "import torch" in an answer binds the module every cell has: it changes nothing
    return {name for tree in trees for name in defined(tree, modules=False)}
