"""Which test cells an answer can change, read from the code: the judge runs only those for a fixture.

A judge case (``graders.qa.judge``) starts from the namespace the reference's run left, runs one answer cell again
(the fixture's: the names it binds are :func:`changed`), then runs test cells: the visible and hidden parts of the
fixture's own exercise first, then the reached test cells in notebook order. So a test cell ``T`` can see the fixture
only through a name it looks up, directly or through what it calls:

- every name ``T``'s own code mentions (its functions' bodies included), since all of ``T`` runs in the case;
- through each such name, whatever the object bound to it can look up when it is used: what a function's or a
  class's body names, or, for an assignment, what the value it was given names (:func:`later_uses`), for every
  binding of the name in any cell (a test cell run earlier in the case binds it the same way again). A binding's
  control flow does not count: a test cell does not leave a name bound to something chosen by an answer's result;
- a name ``T`` binds before anything in ``T`` mentions it (a helper ``T`` defines, such as ``same_error``) is ``T``'s
  own while ``T``'s code uses it: another test cell's helper of the same name is not what ``T`` calls.

A test that reaches none of the names the fixture rebinds gets the reference's outcome without being run. A test
that looks names up dynamically (``globals()``, ``eval``, ``get_ipython`` ...) is always run, as is every test for
code that does not parse.
"""

from __future__ import annotations

import ast
import symtable

from graders import nbtools
from graders.grading.cell_syntax import parse_cell

DYNAMIC = {"globals", "vars", "locals", "eval", "exec", "get_ipython", "__import__", "__main__", "importlib"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


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
    # `x.globals()`, `shell.get_ipython` ...; not `model.eval()` or `obj.exec`, which are methods of their own
    dynamic = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in DYNAMIC - {"eval", "exec"}}
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


def _mentioned(node: ast.AST) -> set[str]:
    """The module-level names ``node`` (a statement or an expression) reads, inside its functions and lambdas too."""
    if isinstance(node, ast.expr):
        node = ast.Expr(value=node)
    return free_names(ast.unparse(ast.Module(body=[node], type_ignores=[])))


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def later_uses(tree: ast.Module) -> dict[str, set[str]]:
    """``{top-level name: what the object the cell binds to it can look up when used later}``: a function's or a
    class's every mentioned name (body, decorators, defaults, bases), an assignment's value's names (an alias is
    the object it names), a loop's or ``with``'s expression's. Names bound inside top-level ``if``/``try``/``with``/
    loops count; a function's ``global`` names are bound when it runs, by what it mentions."""
    found: dict[str, set[str]] = {}

    def bind(names, uses) -> None:
        for name in names:
            found.setdefault(name, set()).update(uses)

    def visit(nodes) -> None:
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind([node.name], _mentioned(node))
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Global):
                        bind(inner.names, _mentioned(node))
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bind([(a.asname or a.name).split(".")[0] for a in node.names], ())
                continue
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = _mentioned(node.value) if node.value is not None else set()
                if isinstance(node, ast.AugAssign):
                    value |= _mentioned(node.target)
                bind(set().union(*map(_targets, targets)), value)
                continue
            if isinstance(node, (ast.For, ast.AsyncFor)):
                bind(_targets(node.target), _mentioned(node.iter))
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        bind(_targets(item.optional_vars), _mentioned(item.context_expr))
            elif isinstance(node, ast.ExceptHandler):
                if node.name:
                    bind([node.name], ())
            elif not hasattr(node, "body"):  # a simple statement's walrus: bound by what the statement reads
                stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                          and not _inside_scope(node, n)}
                bind(stored, _mentioned(node))
            else:  # if, while, try, match: an expression's walrus, a case's captures, by what the statement reads
                heads = [getattr(node, "test", None), getattr(node, "subject", None)]
                heads += [c.pattern for c in getattr(node, "cases", ()) or ()]
                for head in filter(None, heads):
                    stored = {n.id for n in ast.walk(head) if isinstance(n, ast.Name)
                              and isinstance(n.ctx, ast.Store)}
                    stored |= {n.name for n in ast.walk(head) if isinstance(n, (ast.MatchAs, ast.MatchStar))
                               and n.name}
                    bind(stored, _mentioned(node))
            for field in ("body", "orelse", "finalbody", "handlers"):
                visit(getattr(node, field, ()) or ())
            for case in getattr(node, "cases", ()) or ():
                visit(case.body)

    visit(tree.body)
    return found


def _inside_scope(root: ast.AST, target: ast.AST) -> bool:
    """Is ``target`` inside a function, class or lambda below ``root`` (a binding of its own scope)?"""
    for node in ast.walk(root):
        if isinstance(node, _SCOPES) and node is not root and any(n is target for n in ast.walk(node)):
            return True
    return False


def declared_global(nodes) -> set[str]:
    """The names a ``global`` statement anywhere in ``nodes`` (statements, or a module) declares."""
    return {name for node in nodes for n in ast.walk(node) if isinstance(n, ast.Global) for name in n.names}


def scope_locals(tree: ast.Module) -> set[int]:
    """The ``ast.Name`` nodes (by ``id``) that stand for a function's own local (or an enclosing function's): a
    parameter, or a name the function binds without a ``global`` statement. Not the cell's names."""
    found: set[int] = set()

    def bound_in(body) -> set[str]:
        names: set[str] = set()
        todo = list(body)
        while todo:
            node = todo.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
                todo.extend(node.decorator_list)  # evaluated here; its body is a scope of its own
                continue
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            todo.extend(ast.iter_child_nodes(node))
        return names

    def walk(node, local: frozenset[str]) -> None:
        if isinstance(node, ast.Name):
            if node.id in local:
                found.add(id(node))
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            for outer in [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None),
                          *getattr(node, "decorator_list", ())]:
                walk(outer, local)  # evaluated in the enclosing scope
            body = node.body if isinstance(node.body, list) else [node.body]
            params = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                      *filter(None, [arguments.vararg, arguments.kwarg])]}
            inner = frozenset((local | params | bound_in(body)) - declared_global(body))
            for stmt in body:
                walk(stmt, inner)
            return
        for child in ast.iter_child_nodes(node):
            walk(child, local)

    walk(tree, frozenset())
    return found


def own_helpers(tree: ast.Module) -> set[str]:
    """The names a test cell binds before anything in it mentions them: defined at its top level (outside any
    function), with no earlier mention in the cell's text. While the cell's own code uses them, they are its own."""
    first: dict[str, tuple[int, int, bool]] = {}

    def note(name, node, binds) -> None:
        key = (node.lineno, node.col_offset)
        if name not in first or key < first[name][:2]:
            first[name] = (*key, binds)

    # a method, or a name a function binds or reads as its own local, is that scope's (not a mention of the cell's
    # name of the same spelling: `def rate(self)` in a class, `_times = ...` in a function, before `rate = ...`)
    scoped = scope_locals(tree)
    declared = declared_global([tree])

    def visit(node, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(node, _SCOPES)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if inner or child.name in declared:
                    note(child.name, child, inner)  # its decorators, on earlier lines, are noted as its children
            elif isinstance(child, ast.Name):
                if id(child) not in scoped and (inner or not isinstance(child.ctx, ast.Store) or child.id in declared):
                    note(child.id, child, inner and isinstance(child.ctx, ast.Store))
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for alias in child.names:
                    note((alias.asname or alias.name).split(".")[0], child, inner)
            visit(child, inner)

    visit(tree, True)
    # an assignment's value (an augmented one's target too) is read before its targets are bound: `x = x + 1`
    # reads x first, so its reads count from the statement's start
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            reads = [node.value, node.target] if isinstance(node, ast.AugAssign) else [node.value]
            for n in (n for r in reads for n in ast.walk(r) if isinstance(n, ast.Name) and id(n) not in scoped):
                key = (node.lineno, -1)
                if n.id not in first or key < first[n.id][:2]:
                    first[n.id] = (*key, False)
    return {name for name, (_line, _col, binds) in first.items() if binds}


class Reach:
    """A notebook's code cells, in order, to answer "can a fixture that rebinds these names change this test?"."""

    def __init__(self, cells: list[tuple[str, bool]]):
        """``cells``: every code cell's source, in notebook order, with whether it is a test cell."""
        self.made: dict[str, set[str]] = {}     # name -> what the reference run's objects bound to it look up
        # a test cell's source -> (what its code reads from the namespace, its own helpers); None: it does not parse
        self.tests: dict[str, tuple[set[str], set[str]] | None] = {}
        for source, is_test in cells:
            tree = parse_cell(source)
            for name, uses in (later_uses(tree) if tree is not None else {}).items():
                self.made.setdefault(name, set()).update(uses)
            if is_test and tree is not None:  # its free names, and those it binds after reading them
                own = own_helpers(tree)
                bound = {s.get_name() for s in symtable.symtable(source, "<cell>", "exec").get_symbols()
                         if s.is_assigned() or s.is_imported()}
                self.tests.setdefault(source, (free_names(source) | (bound - own), own))
            elif is_test:
                self.tests.setdefault(source, None)
        self._reached: dict[str, set[str] | None] = {}

    def reached(self, source: str) -> set[str] | None:
        """Every name test cell ``source`` can look up; None: it does not parse (or is no test cell of the
        notebook), so it may reach anything."""
        if source not in self._reached:
            self._reached[source] = self._closure(source)
        return self._reached[source]

    def _closure(self, source: str) -> set[str] | None:
        if self.tests.get(source) is None:
            return None
        mentions, own = self.tests[source]
        seen: set[tuple[str, bool]] = set()
        todo = [(name, True) for name in mentions]  # (name, looked up by the test's own code)
        while todo:
            name, by_test = todo.pop()
            if (name, by_test) in seen:
                continue
            seen.add((name, by_test))
            if by_test and name in own:
                continue  # the test's own helper: its code is the test's, already counted
            uses = set(self.made.get(name, ()))
            todo.extend((used, False) for used in uses)
        return {name for name, _ in seen}

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
