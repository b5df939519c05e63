"""The cells the grader pastes into the kernel (graders/grading/guard_cells.py): the install cell deletes every
top-level name the pasted sources define, found with ``ast``, so a helper added to guard.py never stays in the
student's namespace."""

from __future__ import annotations

import ast

import pytest

from graders.grading import guard_cells


def test_defined_names_are_every_binding_at_the_top_level_in_order():
    source = ('"""doc"""\nimport os, json as _j\nfrom a.b import c as _c\nX = Y = 1\n_z: int = 2\n'
              'def _f():\n    inner = 1\nclass _K:\n    attr = 1\nasync def _g():\n    pass\n'
              'if True:\n    nested = 1\n')
    assert guard_cells.defined_names(source) == ["os", "_j", "_c", "X", "Y", "_z", "_f", "_K", "_g"]


@pytest.mark.parametrize("sandboxed", [True, False])
def test_the_install_cell_deletes_every_name_the_pasted_sources_define(sandboxed):
    config = {"trusted_sources": [], "sandboxed": sandboxed}
    top = guard_cells.guard_sources("tok", config, ["test_a"])["top"]
    tree = ast.parse(top)
    deleted = [t.id for n in tree.body if isinstance(n, ast.Delete) for t in n.targets]
    pasted = guard_cells.GUARD_SOURCE + ("" if sandboxed else guard_cells.GUARD_OS_SOURCE)
    defined = {n.name for n in ast.parse(pasted).body if isinstance(n, ast.FunctionDef)}
    assert "_grader_guard_install" in deleted and defined <= set(deleted)
    assert ("_grader_guard_os_rules" in deleted) is not sandboxed
    assert isinstance(tree.body[-1], ast.Delete)  # the last statement: nothing runs after it with the helpers
    namespace: dict = {}
    exec(compile("\n".join(ast.unparse(n) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.Delete))),
                 "top", "exec"), namespace)
    assert not set(deleted) & set(namespace)
