"""What the course's own cells name, read (never run) to configure the in-kernel guard
(``graders.grading.guarding``): the functions the answers define, the modules the course's cells import and the
names the tests take from the notebook."""

from __future__ import annotations

import ast

from graders import nbtools
from graders.grading.cell_syntax import bindings, parse_cell, trees
from graders.grading.guard_cells import PROTECTED_PACKAGES


def graded_functions(release_nb) -> list[str]:
    """Top-level function names the answer cells define (the contract's names)."""
    answers = [cell.source for cell in release_nb.cells if nbtools.is_solution_cell(cell) and cell.cell_type == "code"]
    return [n.name for tree in trees(answers) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]


def namespace_modules(sources: list[str], users: list[str] | None = None) -> dict[str, str]:
    """``{name: module}`` for the plain ``import X [as Y]`` lines of the course's own cells.

    With ``users`` (the test cells), only the names some of them use without importing them: the
    guard puts those back before each test. A student's ``from time import time`` must stay theirs
    (their functions call it while the tests run) when no test relies on the notebook's ``time``.
    """
    found = {}
    for tree in trees(sources):
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        found[alias.asname] = alias.name
                    elif "." not in alias.name:
                        found[alias.name] = alias.name
    found = {k: v for k, v in found.items() if v.split(".")[0] in PROTECTED_PACKAGES}
    if users is not None:
        needed = set().union(*[_borrowed_names(text) for text in users]) if users else set()
        found = {k: v for k, v in found.items() if k in needed}
    return found


def _borrowed_names(text: str) -> set[str]:
    """Names a cell reads without binding them itself (it takes them from the notebook)."""
    tree = parse_cell(text)
    if tree is None:
        return set()
    loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    names, _declared, _data = bindings(tree.body)
    return loads - names


def test_names(test_sources: list[str]) -> list[str]:
    """Every name the test cells read from the notebook: the built-ins among them are the ones the
    guard puts back before a test (a student's own ``compile`` or ``sum`` elsewhere stays theirs)."""
    return sorted(set().union(*[_borrowed_names(text) for text in test_sources])) if test_sources else []


def imported_modules(sources: list[str]) -> list[str]:
    """Every protected module the course's own cells import (the guard loads them before student code)."""
    found = []
    for tree in trees(sources):
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            for name in names:
                if name.split(".")[0] in PROTECTED_PACKAGES and name not in found:
                    found.append(name)
    return found
