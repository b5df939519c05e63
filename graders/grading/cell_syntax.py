"""A course or student cell read as Python, never run: its syntax tree with IPython's magics aside, and what its
statements bind. The static scan (``graders.grading.scan``) and the analysis of the course's own cells that
configures the guard (``graders.grading.cell_names``) read cells this one way."""

from __future__ import annotations

import ast

from graders import nbtools

#: Built-ins whose result is data, so ``torch._dynamo.config.cache_size_limit = max(64, n)`` is a switch.
DATA_CALLS = {"int", "float", "bool", "str", "len", "min", "max", "round", "abs", "tuple", "list", "set", "dict"}
#: Modules a student may name a value from when setting a switch (``... = torch.float16``).
DATA_ATTRS = {"float16", "bfloat16", "float32", "float64", "half", "float", "double", "int8", "uint8", "int32",
              "int64", "bool", "channels_last", "contiguous_format"}


def without_magics(text: str) -> str:
    return "\n".join("pass  # magic" if line.lstrip().startswith(("%", "!")) else line
                     for line in text.splitlines())


def parse_cell(text: str) -> ast.Module | None:
    """A cell's syntax tree, magics aside; None when it does not parse (it fails in the kernel, for everyone to see)."""
    try:
        return nbtools.parse_python(without_magics(text))
    except SyntaxError:
        return None


def trees(sources) -> list[ast.Module]:
    """The syntax trees of the cells that parse."""
    return [tree for tree in map(parse_cell, sources) if tree is not None]


def dotted_name(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("vars", "globals"):
        parts.append(node.func.id + "()")
        return ".".join(reversed(parts))
    return None


def bindings(body: list) -> tuple[set[str], set[str], dict[str, bool]]:
    """What the statements ``body`` bind in their own scope, without entering nested scopes:
    ``(names, declared global, {name: every assignment to it is plain data})``."""
    names, declared, data = set(), set(), {}
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            data[node.name] = False
            todo += node.decorator_list
            if not isinstance(node, ast.ClassDef):
                todo += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            continue
        if isinstance(node, ast.Lambda):
            todo += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            todo.append(node.generators[0].iter)  # evaluated in the enclosing scope
            continue
        if isinstance(node, ast.Assign):
            plain = is_data(node.value, {})
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    data[target.id] = data.get(target.id, True) and plain
                else:
                    todo.append(target)
            todo.append(node.value)
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared |= set(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
            data[node.id] = False
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                names.add(bound)
                data[bound] = False
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        todo += ast.iter_child_nodes(node)
    return names - declared, declared, data


def local_names(node) -> set[str]:
    """The names a function, lambda or comprehension binds for itself (parameters included)."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    args = node.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a}
    body = node.body if isinstance(node.body, list) else [ast.Expr(node.body)]
    names, declared, _ = bindings(body)
    return (names | params) - declared


def is_data(node, data_names: dict[str, bool]) -> bool:
    """A value that cannot be a function: what a switch is set to (a number, a flag, a string...)."""
    if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Compare)):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(is_data(e, data_names) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(is_data(v, data_names) for v in node.keys + node.values if v is not None)
    if isinstance(node, ast.UnaryOp):
        return is_data(node.operand, data_names)
    if isinstance(node, ast.BinOp):
        return is_data(node.left, data_names) and is_data(node.right, data_names)
    if isinstance(node, ast.BoolOp):
        return all(is_data(v, data_names) for v in node.values)
    if isinstance(node, ast.IfExp):
        return is_data(node.body, data_names) and is_data(node.orelse, data_names)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in DATA_CALLS
    if isinstance(node, ast.Name):
        return data_names.get(node.id, False)
    if isinstance(node, ast.Attribute):
        dotted = dotted_name(node) or ""
        return node.attr in DATA_ATTRS or ".config." in f".{dotted}"
    return False
