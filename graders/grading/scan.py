"""The static scan: the student's code read (never run) for anything a correct answer has no reason to do.

:func:`static_scan` names the line of each: assigning attributes of torch, builtins, gpucourse or the check
helpers, redefining ``isinstance``-like built-ins, trace functions, ``gc``/``ctypes``/frame tricks, reading the
tests' private variables or their reference implementations. A finding is evidence for a review, not a zero
(``graders.grading.review``). Cells are read as ``graders.grading.cell_syntax`` reads them; the course's own cells,
read to configure the in-kernel guard, are ``graders.grading.cell_names``'s. Checked by
``tests/unit/grading/test_tamper_scan.py`` and ``tests/e2e/grading/test_adversarial.py``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from graders import nbtools
from graders.grading.cell_syntax import bindings, dotted_name, is_data, local_names, parse_cell, trees
from graders.grading.guard_cells import source_hash
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
    for tree in trees(test_sources):
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id.startswith("_") \
                    and not node.id.startswith("__") and len(node.id) > 2:
                names.add(node.id)
    return names


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
        return value is not None and is_data(value, self.data_names)

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
        dotted = dotted_name(inner)
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
        self._scoped(node, local_names(node))
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._scoped(node, local_names(node))

    def visit_ListComp(self, node):
        self._scoped(node, local_names(node))

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_ClassDef(self, node):
        if node.name in CRITICAL_BUILTINS and self.module_level(node.name) and not self.depth:
            self.flag(node, f"redefines the built-in {node.name}")
        self.depth += 1
        self._scoped(node, bindings(node.body)[0])  # a class attribute named ``all`` is the class's
        self.depth -= 1

    def visit_Call(self, node):
        dotted = dotted_name(node.func)
        if dotted:
            real = self.real(dotted)
            if real in CALLS:
                self.flag(node, CALLS[real])
            elif real in ("setattr", "delattr") and node.args:
                obj = dotted_name(node.args[0])
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
            dotted_name(base) is not None and self.real(dotted_name(base)).split(".")[0] == "__main__")
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
        names, _declared, data = bindings(tree.body)
        own |= names
        for name, plain in data.items():
            data_names[name] = data_names.get(name, True) and plain
    findings = []
    for label, tree in trees:
        scanner = _Scanner(label, helpers, private, aliases, own, data_names)
        scanner.visit(tree)
        findings += scanner.findings
    return findings
