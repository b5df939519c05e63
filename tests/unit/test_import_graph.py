"""The import graph of graders/ and gpucourse/ stays acyclic, lazy imports (inside functions) included, and no
module imports another package's private (``_name``) names: a newcomer can read the packages bottom-up."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("graders", "gpucourse")


def modules(repo: Path = REPO) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (repo / package).rglob("*.py"):
            parts = list(path.relative_to(repo).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _owner(name: str, known: dict) -> str | None:
    """The module of ours that ``name`` (a module or a module's attribute) lives in."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(name: str, path: Path, known: dict) -> list[tuple[str, str]]:
    """``(module, imported name)`` for every import of ours anywhere in the file (functions included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(_owner(a.name, known), "") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append((full, "") if full in known else (_owner(base, known), alias.name))
    return [(target, attr) for target, attr in found if target and target != name]


def graph(repo: Path = REPO) -> dict[str, set[str]]:
    known = modules(repo)
    return {name: {target for target, _ in imports(name, path, known)} for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_cycle():
    assert cycles(graph()) == []


def test_no_module_imports_another_packages_private_names():
    known = modules()
    offenders = []
    for name, path in known.items():
        for target, attr in imports(name, path, known):
            same_package = target.rpartition(".")[0] == name.rpartition(".")[0] or target.startswith(name + ".")
            if attr.startswith("_") and not attr.startswith("__") and not same_package:
                offenders.append(f"{name} imports {target}.{attr}")
    assert offenders == []


def test_the_checks_see_a_cycle_and_a_private_import(tmp_path):
    """The two checks above can fail: a made-up package with a lazy cycle and a private import."""
    package = tmp_path / "graders"
    (package / "sub").mkdir(parents=True)
    (tmp_path / "gpucourse").mkdir()
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from graders.sub import b\n")
    (package / "sub" / "b.py").write_text("from graders.a import _hidden\n")
    edges = graph(tmp_path)
    assert cycles(edges) == [["graders.a", "graders.sub.b"]]
    known = modules(tmp_path)
    assert ("graders.a", "_hidden") in imports("graders.sub.b", package / "sub" / "b.py", known)
