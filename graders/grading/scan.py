"""The static scan: the student's code read (never run) for anything a correct answer has no reason to do.

:func:`static_scan` names the line of each: assigning attributes of torch, builtins, gpucourse or the check
helpers, redefining ``isinstance``-like built-ins, trace functions, ``gc``/``ctypes``/frame tricks, reading the
tests' private variables or their reference implementations. A finding is evidence for a review, not a zero
(``graders.grading.review``). The read-only analysis of the course's own cells that configures the in-kernel guard
(:func:`graded_functions`, :func:`namespace_modules`, :func:`test_names`, :func:`imported_modules`) is here too:
it reads cells the same way. Checked by ``tests/unit/grading/test_tamper_scan.py`` and
``tests/e2e/grading/test_adversarial.py``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from graders import nbtools
from graders.grading.guard_cells import PROTECTED_PACKAGES, source_hash
from graders.paths import REPO

GPUCOURSE = REPO / "gpucourse"

#: Built-ins a test relies on; a notebook that redefines one is flagged (a variable named ``max`` is not).
CRITICAL_BUILTINS = {"isinstance", "issubclass", "abs", "all", "any", "AssertionError", "BaseException",
                     "Exception", "__import__", "__build_class__", "getattr", "hasattr", "callable", "super"}
#: Attributes a student may legitimately set on torch (switches, not functions).
TORCH_SWITCHES = {"benchmark", "deterministic", "allow_tf32", "enabled", "allow_fp16_reduced_precision_reduction",
                  "allow_bf16_reduced_precision_reduction", "verbose", "cache_size_limit", "suppress_errors"}
SYS_HOOKS = {"modules", "settrace", "setprofile", "meta_path", "path_hooks", "displayhook", "excepthook",
             "addaudithook", "_getframe", "setrecursionlimit_", "monitoring"}
NATIVE = {"load_inline", "cpp_extension", "load_library", "CDLL", "cdll", "pythonapi"}
FRAME_ATTRS = {"f_back", "f_locals", "f_globals", "f_builtins", "tb_frame", "gi_frame", "cr_frame"}
CALLS = {"sys.settrace": "installs a trace function", "sys.setprofile": "installs a profile function",
         "threading.settrace": "installs a trace function", "threading.setprofile": "installs a profile function",
         "sys.addaudithook": "adds an audit hook", "sys._getframe": "inspects the caller's frames",
         "inspect.currentframe": "inspects the caller's frames", "inspect.stack": "inspects the caller's frames",
         "inspect.getouterframes": "inspects the caller's frames", "gc.get_objects": "searches every object (gc)",
         "gc.get_referrers": "searches every object (gc)", "gc.get_referents": "searches every object (gc)",
         "torch.from_file": "maps a file into memory (torch.from_file)"}
#: Built-ins whose result is data, so ``torch._dynamo.config.cache_size_limit = max(64, n)`` is a switch.
DATA_CALLS = {"int", "float", "bool", "str", "len", "min", "max", "round", "abs", "tuple", "list", "set", "dict"}
#: Modules a student may name a value from when setting a switch (``... = torch.float16``).
DATA_ATTRS = {"float16", "bfloat16", "float32", "float64", "half", "float", "double", "int8", "uint8", "int32",
              "int64", "bool", "channels_last", "contiguous_format"}





# ---------------------------------------------------------------------------------------------
# 1. Static scan
# ---------------------------------------------------------------------------------------------
def _helper_names() -> set[str]:
    """Names of the tests' probes in gpucourse.testing / gpucourse.fakes."""
    names = set()
    for module in ("testing.py", "fakes.py"):
        path = GPUCOURSE / module
        if not path.exists():
            continue
        tree = nbtools.parse_python(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.col_offset == 0 \
                    and not node.name.startswith("_"):
                names.add(node.name)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id == "self" and "_" in node.attr.strip("_"):
                names.add(node.attr)
    return names


def _test_private_names(test_sources: list[str]) -> set[str]:
    """``_expected``, ``_model``...: the variables the hidden tests keep in the notebook's namespace."""
    names = set()
    for tree in _trees(test_sources):
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id.startswith("_") \
                    and not node.id.startswith("__") and len(node.id) > 2:
                names.add(node.id)
    return names


def _without_magics(text: str) -> str:
    return "\n".join("pass  # magic" if line.lstrip().startswith(("%", "!")) else line
                     for line in text.splitlines())


def parse_cell(text: str) -> ast.Module | None:
    """A cell's syntax tree, magics aside; None when it does not parse (it fails in the kernel, for everyone to see)."""
    try:
        return nbtools.parse_python(_without_magics(text))
    except SyntaxError:
        return None


def _trees(sources) -> list[ast.Module]:
    """The syntax trees of the cells that parse."""
    return [tree for tree in map(parse_cell, sources) if tree is not None]


def _dotted(node) -> str | None:
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


@dataclass
class Finding:
    cell: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.cell} line {self.line}: {self.what}"


def _is_native(module: str) -> bool:
    """A module that loads or builds native code (raw memory access, past the audit hook)."""
    return module.split(".")[0] in ("ctypes", "cffi") or module.endswith("cpp_extension")


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def _bindings(body: list) -> tuple[set[str], set[str], dict[str, bool]]:
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
            plain = _is_data(node.value, {})
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


def _local_names(node) -> set[str]:
    """The names a function, lambda or comprehension binds for itself (parameters included)."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    args = node.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a}
    body = node.body if isinstance(node.body, list) else [ast.Expr(node.body)]
    names, declared, _ = _bindings(body)
    return (names | params) - declared


def _is_data(node, data_names: dict[str, bool]) -> bool:
    """A value that cannot be a function: what a switch is set to (a number, a flag, a string...)."""
    if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Compare)):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_data(e, data_names) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(_is_data(v, data_names) for v in node.keys + node.values if v is not None)
    if isinstance(node, ast.UnaryOp):
        return _is_data(node.operand, data_names)
    if isinstance(node, ast.BinOp):
        return _is_data(node.left, data_names) and _is_data(node.right, data_names)
    if isinstance(node, ast.BoolOp):
        return all(_is_data(v, data_names) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _is_data(node.body, data_names) and _is_data(node.orelse, data_names)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in DATA_CALLS
    if isinstance(node, ast.Name):
        return data_names.get(node.id, False)
    if isinstance(node, ast.Attribute):
        dotted = _dotted(node) or ""
        return node.attr in DATA_ATTRS or ".config." in f".{dotted}"
    return False


class _Scanner(ast.NodeVisitor):
    """One cell's code, judged by what it does to what the tests rely on, not by the names it uses.

    Assigning over a function of torch, builtins, gpucourse or the checks is tampering; setting a
    switch on torch (a number, a flag: ``torch._dynamo.config.recompile_limit = 16``) is not.
    Reading a variable the hidden tests keep in the notebook is, unless the name is the student's
    own (a local, a parameter, or bound by the student's cells at module level).
    """

    PROTECTED_ROOTS = {"torch", "builtins", "__builtins__", "gpucourse", "math", "random", "copy", "numpy",
                       "operator", "functools", "unittest", "mock"}

    def __init__(self, cell: str, helpers: set[str], private: set[str], aliases: dict[str, str],
                 own: set[str] | None = None, data_names: dict[str, bool] | None = None):
        self.cell, self.helpers, self.private, self.aliases = cell, helpers, private, aliases
        self.own = own or set()                  # names the student's cells bind at module level
        self.data_names = data_names or {}       # module-level names only ever assigned plain data
        self.findings: list[Finding] = []
        self.depth = 0                           # inside a def or class body
        self.scopes: list[set[str]] = []         # the local names of the enclosing functions

    def flag(self, node, what):
        self.findings.append(Finding(self.cell, getattr(node, "lineno", 0), what))

    def real(self, dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        base = self.aliases.get(head, head)
        return base + ("." + rest if rest else "")

    def protected(self, dotted: str) -> bool:
        root = dotted.split(".")[0]
        return root in self.PROTECTED_ROOTS or root in ("Check", "CheckFailed") or root in self.helpers

    def local(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def module_level(self, name: str) -> bool:
        """A store to ``name`` here binds the notebook's global (not a function's local)."""
        return not self.scopes or name not in self.scopes[-1]

    def tests_variable(self, name: str) -> bool:
        """``name`` is one the hidden tests keep, and not the student's own variable."""
        return name in self.private and not self.local(name) and name not in self.own

    def switch(self, real: str, attr: str, value) -> bool:
        """Setting ``real`` (an attribute of torch) to ``value`` only sets a switch."""
        if not real.startswith("torch."):
            return False
        if attr in TORCH_SWITCHES or ".config." in real:
            return not isinstance(value, ast.Lambda)
        return value is not None and _is_data(value, self.data_names)

    # imports bind aliases: ``import torch as T``, ``from gpucourse import checks``
    def visit_Import(self, node):
        for alias in node.names:
            self.aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                alias.name.split(".")[0]
            if _is_native(alias.name):
                self.flag(node, f"imports {alias.name} (native code)")
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        module = node.module or ""
        for alias in node.names:
            self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
            if module.startswith("gpucourse.testing") or module == "gpucourse" and alias.name == "testing":
                self.flag(node, f"imports the tests' probes ({module}.{alias.name})")
        if _is_native(module):
            self.flag(node, f"imports {module} (native code)")
        self.generic_visit(node)

    def _target(self, target, node, value=None):
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._target(t, node)
            return
        if isinstance(target, ast.Starred):
            self._target(target.value, node)
            return
        if isinstance(target, ast.Name):
            if self.module_level(target.id):  # a function's own local named ``all`` changes nothing
                if target.id in CRITICAL_BUILTINS:
                    self.flag(node, f"redefines the built-in {target.id}")
                if target.id == "torch" and not isinstance(node, (ast.Import, ast.ImportFrom)):
                    self.flag(node, "rebinds the name torch")
            return
        inner = target.value if isinstance(target, ast.Subscript) else target
        dotted = _dotted(inner)
        if dotted is None:
            return
        real = self.real(dotted)
        if isinstance(target, ast.Subscript):
            key = target.slice.value if isinstance(target.slice, ast.Constant) else None
            if real.startswith(("sys.modules", "builtins.__dict__", "__builtins__")) or real.endswith(
                    "__dict__") and self.protected(real):
                self.flag(node, f"writes into {dotted}[...]")
            elif real.startswith(("globals()", "vars()")) and not (
                    isinstance(key, str) and key not in CRITICAL_BUILTINS and key not in self.private
                    and key.split(".")[0] not in self.PROTECTED_ROOTS):
                self.flag(node, f"writes into {dotted}[...]")
            return
        attr = real.rsplit(".", 1)[-1]
        if real.startswith("sys.") and attr in SYS_HOOKS:
            self.flag(node, f"replaces {dotted}")
        elif self.protected(real) and "." in real:
            if not isinstance(node, ast.Delete) and self.switch(real, attr, value):
                return
            self.flag(node, f"replaces {dotted}")
        elif attr in ("__code__", "__class__", "__eq__", "__globals__", "__defaults__") and "." in real:
            self.flag(node, f"replaces {dotted}")

    def visit_Assign(self, node):
        for target in node.targets:
            self._target(target, node, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._target(node.target, node, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._target(node.target, node, node.value)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for target in node.targets:
            self._target(target, node)
        self.generic_visit(node)

    def _scoped(self, node, names: set[str]):
        self.scopes.append(names)
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node):
        if node.name in CRITICAL_BUILTINS and self.module_level(node.name) and not self.depth:
            self.flag(node, f"redefines the built-in {node.name}")
        self.depth += 1
        self._scoped(node, _local_names(node))
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._scoped(node, _local_names(node))

    def visit_ListComp(self, node):
        self._scoped(node, _local_names(node))

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_ClassDef(self, node):
        if node.name in CRITICAL_BUILTINS and self.module_level(node.name) and not self.depth:
            self.flag(node, f"redefines the built-in {node.name}")
        self.depth += 1
        self._scoped(node, _bindings(node.body)[0])  # a class attribute named ``all`` is the class's
        self.depth -= 1

    def visit_Call(self, node):
        dotted = _dotted(node.func)
        if dotted:
            real = self.real(dotted)
            if real in CALLS:
                self.flag(node, CALLS[real])
            elif real in ("setattr", "delattr") and node.args:
                obj = _dotted(node.args[0])
                name = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else None
                value = node.args[2] if len(node.args) > 2 else None
                target = self.real(obj) if obj else ""
                if real == "setattr" and obj and isinstance(name, str) and self.switch(f"{target}.{name}", name, value):
                    pass
                elif obj is None or self.protected(target) or target.startswith("sys"):
                    self.flag(node, f"calls {real} on {obj or 'a computed object'}")
            elif real.split(".")[-1] in ("patch", "object") and "mock" in real or real.startswith(
                    "unittest.mock.patch"):
                self.flag(node, "patches objects with unittest.mock")
            elif real.startswith("ctypes."):
                self.flag(node, f"calls {real} (raw memory access)")
        self.generic_visit(node)

    def visit_Constant(self, node):
        # globals()["_expected"], vars().get("_expected"), getattr(__main__, "_expected"), eval("_expected")
        if isinstance(node.value, str) and self.tests_variable(node.value):
            self.flag(node, f"reads the hidden tests' variable {node.value} by name (globals(), getattr or eval)")

    def visit_Attribute(self, node):
        base = node.value
        via_module = isinstance(base, (ast.Call, ast.Subscript)) or (
            _dotted(base) is not None and self.real(_dotted(base)).split(".")[0] == "__main__")
        if node.attr in NATIVE:
            self.flag(node, f"loads native code ({node.attr})")
        elif isinstance(node.ctx, ast.Load) and via_module and self.tests_variable(node.attr):
            self.flag(node, f"reads the hidden tests' variable {node.attr}")
        elif node.attr in FRAME_ATTRS:
            self.flag(node, f"reads a frame's {node.attr}")
        elif node.attr in self.helpers and isinstance(node.ctx, ast.Load) and node.attr.startswith("seen_"):
            self.flag(node, f"touches the tests' probe ({node.attr})")
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and self.tests_variable(node.id):
            self.flag(node, f"reads the hidden tests' variable {node.id}")
        elif isinstance(node.ctx, ast.Load) and node.id in self.helpers and not self.local(node.id) \
                and self.aliases.get(node.id, "").startswith("gpucourse.testing"):
            self.flag(node, f"uses the tests' helper {node.id}")
        self.generic_visit(node)


def student_cells(nb, trusted: set[str]) -> list[tuple[str, str]]:
    """``(label, source)`` of every code cell that is not a verbatim course or test cell."""
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or cell.metadata.get("grader_guard"):
            continue
        if nbtools.is_test_cell(cell) or nbtools.nbgrader_meta(cell).get("locked"):
            continue  # nbgrader puts the released source back
        if source_hash(cell.source) in trusted:
            continue
        label = nbtools.grade_id(cell) or f"cell {index + 1}"
        cells.append((f"'{label}'" if nbtools.grade_id(cell) else label, cell.source))
    return cells


def static_scan(nb, trusted: set[str], test_sources: list[str]) -> list[Finding]:
    """Every line of student code that tampers with what the tests rely on (see the module doc)."""
    helpers = _helper_names()
    private = _test_private_names(test_sources)
    aliases: dict[str, str] = {}
    trees = [(label, tree) for label, source in student_cells(nb, trusted) if (tree := parse_cell(source)) is not None]
    own: set[str] = set()
    data_names: dict[str, bool] = {}
    for _label, tree in trees:  # the student's own module-level names, in any cell
        names, _declared, data = _bindings(tree.body)
        own |= names
        for name, plain in data.items():
            data_names[name] = data_names.get(name, True) and plain
    findings = []
    for label, tree in trees:
        scanner = _Scanner(label, helpers, private, aliases, own, data_names)
        scanner.visit(tree)
        findings += scanner.findings
    return findings


# ---------------------------------------------------------------------------------------------
# 2. The guard cells and their log

def graded_functions(release_nb) -> list[str]:
    """Top-level function names the answer cells define (the contract's names)."""
    answers = [cell.source for cell in release_nb.cells if nbtools.is_solution_cell(cell) and cell.cell_type == "code"]
    return [n.name for tree in _trees(answers) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]


def namespace_modules(sources: list[str], users: list[str] | None = None) -> dict[str, str]:
    """``{name: module}`` for the plain ``import X [as Y]`` lines of the course's own cells.

    With ``users`` (the test cells), only the names some of them use without importing them: the
    guard puts those back before each test. A student's ``from time import time`` must stay theirs
    (their functions call it while the tests run) when no test relies on the notebook's ``time``.
    """
    found = {}
    for tree in _trees(sources):
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
    names, _declared, _data = _bindings(tree.body)
    return loads - names


def test_names(test_sources: list[str]) -> list[str]:
    """Every name the test cells read from the notebook: the built-ins among them are the ones the
    guard puts back before a test (a student's own ``compile`` or ``sum`` elsewhere stays theirs)."""
    return sorted(set().union(*[_borrowed_names(text) for text in test_sources])) if test_sources else []


def imported_modules(sources: list[str]) -> list[str]:
    """Every protected module the course's own cells import (the guard loads them before student code)."""
    found = []
    for tree in _trees(sources):
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            for name in names:
                if name.split(".")[0] in PROTECTED_PACKAGES and name not in found:
                    found.append(name)
    return found

