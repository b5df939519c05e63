"""Defenses against a submission that games the tests or attacks the grader (docs/grading.md).

Three layers, each checked by ``tests/test_adversarial.py``:

1. :func:`static_scan` reads the student's code (never runs it) and names the line of anything a
   correct answer has no reason to do: assigning attributes of torch, builtins, gpucourse or the
   check helpers, redefining ``isinstance``-like built-ins, trace functions, ``gc``/``ctypes``/frame
   tricks, reading the tests' private variables or their reference implementations.
2. :mod:`graders.guard` runs inside the kernel (cells added by :func:`insert_guards`): an audit hook
   that refuses access to the grader's files, and a snapshot of every object the tests rely on,
   put back before each test and compared after it. :func:`read_log` checks its signed log.
3. :class:`FileWatch` compares the helper package, the venv's start-up files and the submissions
   before and after each run (what native code, outside Python's audit hooks, could change).

Any finding fails the notebook with score 0 and a message naming what was found; the message also
gives the score nbgrader computed (with the guard's repairs), so an instructor can overrule it.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import nbtools
from .paths import REPO

GUARD_SOURCE = (Path(__file__).with_name("guard.py")).read_text()
MARK = "# GRADER GUARD: added by the autograder, not part of the submission."

#: Modules whose functions, classes (with their methods) and code the tests rely on; snapshotted
#: before any student code, put back before every test. Every module of these packages is included:
PROTECTED_PREFIXES = ["gpucourse"]
#: and these modules exactly (all of torch's 900 modules would cost seconds per notebook).
PROTECTED_MODULES = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.parameter",
                     "torch.nn.modules.module", "torch.optim", "torch.optim.optimizer", "torch.utils.data",
                     "torch.utils.data.dataloader", "torch.overrides", "torch.testing", "torch.amp", "torch.cuda",
                     "torch.backends", "torch.backends.mps", "torch.backends.cuda", "torch.backends.cudnn",
                     "torch.autograd", "torch.autograd.grad_mode", "torch.random", "torch.linalg", "torch._tensor",
                     "torch.functional", "torch.types", "torch._C._VariableFunctions",
                     "math", "cmath", "random", "copy", "operator", "functools", "itertools", "contextlib",
                     "unittest.mock", "warnings", "numbers", "numpy", "collections", "abc", "types", "inspect",
                     "json", "time", "re", "statistics", "dataclasses", "typing"]
PROTECTED_PACKAGES = PROTECTED_PREFIXES + sorted({m.split(".")[0] for m in PROTECTED_MODULES})
PRELOAD = ["torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.utils.data", "torch.overrides",
           "torch.testing", "torch.amp", "copy", "math", "random", "unittest.mock", "numpy"]
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
         "globals": "reads the notebook's global variables by name (globals())",
         "torch.from_file": "maps a file into memory (torch.from_file)"}


def norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def source_hash(text: str) -> str:
    return hashlib.sha256(norm(text).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# 1. Static scan
# ---------------------------------------------------------------------------------------------
def _helper_names() -> set[str]:
    """Names of the tests' probes and reference code in gpucourse.testing / gpucourse.fakes."""
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
    for text in test_sources:
        try:
            tree = nbtools.parse_python(_without_magics(text))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id.startswith("_") \
                    and not node.id.startswith("__") and len(node.id) > 2:
                names.add(node.id)
    return names


def _without_magics(text: str) -> str:
    return "\n".join("pass  # magic" if line.lstrip().startswith(("%", "!")) else line
                     for line in text.splitlines())


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


class _Scanner(ast.NodeVisitor):
    PROTECTED_ROOTS = {"torch", "builtins", "__builtins__", "gpucourse", "math", "random", "copy", "numpy",
                       "operator", "functools", "unittest", "mock"}

    def __init__(self, cell: str, helpers: set[str], private: set[str], aliases: dict[str, str]):
        self.cell, self.helpers, self.private, self.aliases = cell, helpers, private, aliases
        self.findings: list[Finding] = []
        self.depth = 0

    def flag(self, node, what):
        self.findings.append(Finding(self.cell, getattr(node, "lineno", 0), what))

    def real(self, dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        base = self.aliases.get(head, head)
        return base + ("." + rest if rest else "")

    def protected(self, dotted: str) -> bool:
        root = dotted.split(".")[0]
        return root in self.PROTECTED_ROOTS or root in ("Check", "CheckFailed") or root in self.helpers

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
                self.flag(node, f"imports the tests' reference code ({module}.{alias.name})")
        if _is_native(module):
            self.flag(node, f"imports {module} (native code)")
        self.generic_visit(node)

    def _target(self, target, node):
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._target(t, node)
            return
        if isinstance(target, ast.Starred):
            self._target(target.value, node)
            return
        if isinstance(target, ast.Name):
            if self.depth == 0 or True:
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
            if real.startswith(("sys.modules", "builtins.__dict__", "__builtins__")) or real.startswith(
                    ("globals()", "vars()")) or real.endswith("__dict__") and self.protected(real):
                self.flag(node, f"writes into {dotted}[...]")
            return
        attr = real.rsplit(".", 1)[-1]
        if real.startswith("sys.") and attr in SYS_HOOKS:
            self.flag(node, f"replaces {dotted}")
        elif self.protected(real) and "." in real:
            if real.startswith("torch.") and attr in TORCH_SWITCHES:
                return
            self.flag(node, f"replaces {dotted}")
        elif attr in ("__code__", "__class__", "__eq__", "__globals__", "__defaults__") and "." in real:
            self.flag(node, f"replaces {dotted}")

    def visit_Assign(self, node):
        for target in node.targets:
            self._target(target, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._target(node.target, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._target(node.target, node)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for target in node.targets:
            self._target(target, node)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        if node.name in CRITICAL_BUILTINS:
            self.flag(node, f"redefines the built-in {node.name}")
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        if node.name in CRITICAL_BUILTINS:
            self.flag(node, f"redefines the built-in {node.name}")
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_Call(self, node):
        dotted = _dotted(node.func)
        if dotted:
            real = self.real(dotted)
            if real in CALLS:
                self.flag(node, CALLS[real])
            elif real in ("setattr", "delattr") and node.args:
                obj = _dotted(node.args[0])
                if obj is None or self.protected(self.real(obj)) or self.real(obj).startswith("sys"):
                    self.flag(node, f"calls {real} on {obj or 'a computed object'}")
            elif real.split(".")[-1] in ("patch", "object") and "mock" in real or real.startswith(
                    "unittest.mock.patch"):
                self.flag(node, "patches objects with unittest.mock")
            elif real.startswith("ctypes."):
                self.flag(node, f"calls {real} (raw memory access)")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if node.attr in NATIVE:
            self.flag(node, f"loads native code ({node.attr})")
        elif isinstance(node.ctx, ast.Load) and node.attr in self.private:
            self.flag(node, f"reads the hidden tests' variable {node.attr}")
        elif node.attr in FRAME_ATTRS:
            self.flag(node, f"reads a frame's {node.attr}")
        elif node.attr in self.helpers and isinstance(node.ctx, ast.Load) and node.attr.startswith("seen_"):
            self.flag(node, f"touches the tests' probe ({node.attr})")
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.private:
            self.flag(node, f"reads the hidden tests' variable {node.id}")
        elif isinstance(node.ctx, ast.Load) and node.id in self.helpers and self.aliases.get(node.id, "").startswith(
                ("gpucourse.testing", "gpucourse.fakes")):
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
    findings = []
    for label, source in student_cells(nb, trusted):
        try:
            tree = nbtools.parse_python(_without_magics(source))
        except SyntaxError:
            continue  # it fails in the kernel, for everyone to see
        scanner = _Scanner(label, helpers, private, aliases)
        scanner.visit(tree)
        findings += scanner.findings
    return findings


# ---------------------------------------------------------------------------------------------
# 2. The guard cells and their log
# ---------------------------------------------------------------------------------------------
def graded_functions(release_nb) -> list[str]:
    """Top-level function names the answer cells define (the contract's names)."""
    names = []
    for cell in release_nb.cells:
        if nbtools.is_solution_cell(cell) and cell.cell_type == "code":
            try:
                tree = nbtools.parse_python(_without_magics(cell.source))
            except SyntaxError:
                continue
            names += [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    return names


def namespace_modules(sources: list[str]) -> dict[str, str]:
    """``{name: module}`` for the plain ``import X [as Y]`` lines of the course's own cells."""
    found = {}
    for text in sources:
        try:
            tree = nbtools.parse_python(_without_magics(text))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        found[alias.asname] = alias.name
                    elif "." not in alias.name:
                        found[alias.name] = alias.name
    return {k: v for k, v in found.items() if v.split(".")[0] in PROTECTED_PACKAGES}


def imported_modules(sources: list[str]) -> list[str]:
    """Every protected module the course's own cells import (the guard loads them before student code)."""
    found = []
    for text in sources:
        try:
            tree = nbtools.parse_python(_without_magics(text))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            for name in names:
                if name.split(".")[0] in PROTECTED_PACKAGES and name not in found:
                    found.append(name)
    return found


def guard_sources(token: str, config: dict, tests: list[str]) -> dict[str, str]:
    """The source of every guard cell: ``"top"``, and ``"before:<test>"`` / ``"after:<test>"``.

    The small checkpoint cells are added to the trusted sources; the top cell names itself when it runs.
    """
    var = f"_grader_guard_{token}"
    cells = {}
    for test in tests:
        cells[f"before:{test}"] = f"{MARK}\n{var}.before({test!r})\n"
        cells[f"after:{test}"] = f"{MARK}\n{var}.after({test!r})\n"
    config = dict(config, trusted_sources=list(config["trusted_sources"]) + [source_hash(s) for s in cells.values()])
    cells["top"] = (f"{MARK}\n{GUARD_SOURCE}\n\n{var} = _grader_guard_install(__import__('json').loads("
                    f"{json.dumps(config)!r}))\ndel _grader_guard_install, _register_quick_exit\n")
    return cells


def last_cell(path: Path, key: bytes) -> dict | None:
    """The last cell the kernel started (from the guard's log): ``{"hash": ..., "test": ...}``."""
    if not path.exists():
        return None
    last = None
    for line in path.read_text(errors="replace").splitlines():
        mac, _, body = line.partition(" ")
        if hmac.compare_digest(mac, hmac.new(key, body.encode(), hashlib.sha256).hexdigest()):
            record = json.loads(body)
            if record.get("kind") == "cell":
                last = record
    return last


def insert_guards(nb, sources: dict[str, str]):
    """The notebook with the guard cells in place (first cell; around every test cell)."""
    import nbformat

    def cell(key):
        c = nbformat.v4.new_code_cell(sources[key])
        c.metadata["grader_guard"] = True
        c.id = "grader-guard-" + re.sub(r"[^A-Za-z0-9-]", "-", key.replace(":", "-"))[:50]
        return c

    cells = [cell("top")]
    for c in nb.cells:
        gid = nbtools.grade_id(c)
        if nbtools.is_test_cell(c) and f"before:{gid}" in sources:
            cells += [cell(f"before:{gid}"), c, cell(f"after:{gid}")]
        else:
            cells.append(c)
    nb.cells = cells
    return nb


@dataclass
class GuardReport:
    tampering: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    per_test: dict[str, list[str]] = field(default_factory=dict)


def read_log(path: Path, key: bytes, tests: list[str], ran: bool = True) -> GuardReport:
    """Check the guard's signed log: every line genuine, in order, every checkpoint present."""
    report = GuardReport()
    text = path.read_text(errors="replace") if path.exists() else ""
    records, forged = [], 0
    for line in text.splitlines():
        mac, _, body = line.partition(" ")
        if not hmac.compare_digest(mac, hmac.new(key, body.encode(), hashlib.sha256).hexdigest()):
            forged += 1
            continue
        records.append(json.loads(body))
    if forged:
        report.tampering.append(f"{forged} line(s) in the grader's integrity log were not written by the grader")
    if [r["seq"] for r in records] != list(range(len(records))):
        report.tampering.append("the grader's integrity log was cut or reordered")
    kinds = {(r["kind"], r.get("test")) for r in records}
    if ran and ("install", None) not in kinds:
        report.tampering.append("the grader's integrity guard did not start")
        return report
    for r in records:  # findings count even when the run did not finish (a dead kernel)
        if r["kind"] == "error":
            report.tampering.append(f"the integrity check {r['where']} {r['test']} was broken ({r['error'][:120]})")
        elif r["kind"] == "event" and r.get("severe"):
            where = f" during {r['during']}" if r.get("during") else ""
            report.tampering.append(f"{r['what']}{where}")
            if r.get("during"):
                report.per_test.setdefault(r["during"], []).append(r["what"])
        elif r["kind"] == "event":
            report.notes.append(r["what"])
        elif r["kind"] == "before":
            for change in r.get("restored", []):
                if change.startswith("the built-in") and "was redefined" in change:
                    report.notes.append(f"{change} (put back before {r['test']})")
                else:
                    report.tampering.append(f"{change} before {r['test']} (put back)")
        elif r["kind"] == "after":
            for change in r.get("changes", []):
                report.tampering.append(f"{change} while {r['test']} ran")
                report.per_test.setdefault(r["test"], []).append(change)
    for test in tests if ran else []:
        for kind in ("before", "after"):
            if (kind, test) not in kinds:
                report.tampering.append(f"the integrity check {kind} {test} did not run")
    report.tampering = list(dict.fromkeys(report.tampering))
    report.notes = list(dict.fromkeys(report.notes))
    return report


# ---------------------------------------------------------------------------------------------
# 3. Files outside the run
# ---------------------------------------------------------------------------------------------
class FileWatch:
    """Size and time of the files a run must not change. It only reports: it never writes back,
    because an instructor (or pip) may change them while a long run goes on.

    ``deep`` roots are walked; ``shallow`` roots only list their own entries (site-packages: a new
    ``.pth`` or ``sitecustomize.py`` there would run inside every later kernel).
    """

    def __init__(self, deep: list[Path], shallow: list[Path]):
        self.deep = [Path(r) for r in deep if Path(r).exists()]
        self.shallow = [Path(r) for r in shallow if Path(r).exists()]
        self.before = self._stat()

    def _stat(self) -> dict[Path, tuple]:
        state = {}

        def add(path):
            try:
                st = path.lstat()
            except OSError:
                return
            state[path] = (st.st_size, st.st_mtime_ns)

        for root in self.shallow:
            for path in root.iterdir():
                if path.suffix in (".pth", ".py") or path.is_symlink():
                    add(path)
        for root in self.deep:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = [d for d in dirnames if d != "__pycache__"]
                for name in filenames:
                    add(Path(dirpath) / name)
        return state

    def check(self) -> list[str]:
        """What changed since the last check."""
        now = self._stat()
        changed = []
        for path in sorted(set(now) | set(self.before), key=str):
            if now.get(path) != self.before.get(path):
                what = "created" if path not in self.before else "deleted" if path not in now else "changed"
                changed.append(f"{path} was {what}")
        self.before = now
        return changed


def site_packages() -> list[Path]:
    import site
    return [Path(sp) for sp in site.getsitepackages() if Path(sp).exists()]


def new_key() -> str:
    return os.urandom(32).hex()
