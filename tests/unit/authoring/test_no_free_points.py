"""No free points: no graded answer can be taken from ``gpucourse`` (what students install), and no
released test cell holds a reference answer.

(a) Every graded function or constant, against every public name of every gpucourse module: none has
    the answer's name, the answer's call signature (a drop-in replacement) or, for constants, its value,
    unless the exercise's tests check with ``gpucourse.origin.borrowed`` that the answer was written in
    the notebook. Real nbgrader runs show that ``from gpucourse.timing import ...`` (or a wrapper, or a
    ``functools.partial``) earns 0 for 03's two exercises, and ``best_device`` earns 0 for 01's ``pick_device``.
(b) No test cell of notebooks/ (what students see) defines a function or class that takes an exercise's
    arguments or reads like its reference answer, and no cell of notebooks/ imports ``reference_*`` names.
The generated helper (gpucourse/timing.py, from 03's marked cells) must be what ``graders build`` writes.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass

import pytest
import torch

import gpucourse
from graders import nbtools
from graders.authoring.build import MODULES, PACKAGE, saved_module
from graders.paths import NOTEBOOKS, SOLUTIONS, notebook_names

NAMES = notebook_names()


@dataclass(frozen=True)
class Answer:
    notebook: str
    name: str                # the grade_id, which is the name the answer defines
    node: ast.AST            # its FunctionDef / ClassDef / Assign in the reference answer
    source: str              # the reference answer as a student would type it
    test_source: str         # the whole test cell (visible and hidden) of the solutions notebook

    @property
    def params(self) -> list[str] | None:
        if isinstance(self.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = self.node.args
            return [p.arg for p in a.posonlyargs + a.args]
        return None


def _defines(tree: ast.Module, name: str):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return node
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node
    return None


def answers(name: str) -> list[Answer]:
    nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    tests = {nbtools.grade_id(c): c.source for c in nb.cells if nbtools.is_test_cell(c)}
    found = []
    for cell in nb.cells:
        if not nbtools.is_solution_cell(cell):
            continue
        gid = nbtools.grade_id(cell)
        source = nbtools.answer_from_solution(cell.source)
        node = _defines(ast.parse(source), gid)
        assert node is not None, f"{name}: the answer cell {gid} does not define {gid}"
        found.append(Answer(name, gid, node, source, tests.get(f"test_{gid}", "")))
    return found


ALL = [a for n in NAMES for a in answers(n)]


def package_names():
    """``(module, name, value)`` of every public name defined in a gpucourse module."""
    out = []
    for info in pkgutil.iter_modules(gpucourse.__path__):
        module = importlib.import_module(f"gpucourse.{info.name}")
        for name, value in vars(module).items():
            if name.startswith("_") or inspect.ismodule(value):
                continue
            if callable(value) and getattr(value, "__module__", None) != module.__name__:
                continue   # imported from elsewhere (torch, typing, ...)
            out.append((module.__name__, name, value))
    return out


def guarded(answer: Answer, helper: str) -> bool:
    """The exercise's tests check, in the visible part and in the hidden one, that the answer is not ``helper``."""
    hidden = nbtools.HIDDEN_BLOCK.search(answer.test_source)
    visible = nbtools.strip_hidden(answer.test_source)
    call = re.compile(rf"borrowed\(\s*{re.escape(answer.name)}\b")
    return bool(hidden and call.search(hidden.group(0)) and call.search(visible)
                and re.search(rf"\b{re.escape(helper)}\b", answer.test_source))


def _returns(answer: Answer) -> str | None:
    node = answer.node.returns if isinstance(answer.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    return ast.unparse(node).split(".")[-1] if node is not None else None


def drop_in(fn, answer: Answer) -> bool:
    """``fn`` can be called exactly as the answer is: the same leading parameter names (or none at all), and
    no return annotation that says otherwise."""
    params = answer.params
    if params is None or not inspect.isfunction(fn):
        return False
    sig = inspect.signature(fn)
    positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if len(required) > len(params) or len(positional) < len(params):
        return False
    shown = sig.return_annotation
    shown = None if shown is sig.empty else str(getattr(shown, "__name__", shown)).split(".")[-1]
    if shown is not None and _returns(answer) is not None and shown != _returns(answer):
        return False
    if not params:
        return shown is not None and shown == _returns(answer)
    return [p.name for p in positional[:len(params)]] == params


#: Helpers whose signature looks like an answer's but which do something else, with an input on which
#: the test shows they differ from the reference answer.
LOOK_ALIKES = {
    ("gpucourse.amp.bit_string", "bit_fields"): (1.5, torch.float16),            # one string of bits, for the drawing
    ("gpucourse.amp.bit_string", "roundtrip_rel_error"): (torch.tensor([1.5]), torch.float16),
    ("gpucourse.compiling.compile_unavailable_reason", "choose_amp_dtype"): ("cpu",),   # why compile cannot run
    ("gpucourse.timing.synchronize", "choose_amp_dtype"): ("cpu",),
}


# -- (a) nothing to import ------------------------------------------------------------------------------
@pytest.mark.parametrize("answer", ALL, ids=lambda a: f"{a.notebook}:{a.name}")
def test_no_answer_is_importable_from_gpucourse(answer):
    problems = []
    for module, name, value in package_names():
        where = f"{module}.{name}"
        if name == answer.name and not guarded(answer, module.split(".")[-1]):
            problems.append(f"{where} has the answer's name, and test_{answer.name} does not check its origin")
        elif drop_in(value, answer) and not guarded(answer, name) and (where, answer.name) not in LOOK_ALIKES:
            problems.append(f"{where} is a drop-in for {answer.name}, and test_{answer.name} does not check its origin")
    if isinstance(answer.node, ast.Assign):   # a constant: no value in gpucourse may equal it
        namespace = {"torch": torch}
        exec(compile(answer.source, f"<{answer.name}>", "exec"), namespace)
        expected = namespace[answer.name]
        for module, name, value in package_names():
            try:
                same = type(value) is type(expected) and value == expected
            except Exception:   # tensors and the like compare elementwise: not an answer dict
                same = False
            if same:
                problems.append(f"{module}.{name} equals the answer {answer.name}")
    assert not problems, f"{answer.notebook}: " + "; ".join(problems)


@pytest.mark.parametrize("helper, answer_name", sorted(LOOK_ALIKES))
def test_look_alikes_are_not_the_answer(helper, answer_name):
    """Each helper allowed above really computes something else than the reference answer."""
    answer = next(a for a in ALL if a.name == answer_name)
    namespace = {"torch": torch, **{k: v for k, v in vars(importlib.import_module("gpucourse.amp")).items()
                                    if k.isupper()}}   # 06 imports the layouts (LAYOUTS) from gpucourse.amp
    exec(compile(answer.source, f"<{answer.name}>", "exec"), namespace)
    module, name = helper.rsplit(".", 1)
    args = LOOK_ALIKES[(helper, answer_name)]
    got, expected = getattr(importlib.import_module(module), name)(*args), namespace[answer.name](*args)
    assert type(got) is not type(expected) or got != expected, f"{helper} answers {answer_name}"


def test_gpucourse_holds_no_reference_code():
    found = [f"{m}.{n}" for m, n, _ in package_names() if n.lower().startswith(("reference", "expected"))]
    assert not found, f"reference answers installed with gpucourse: {found}"


def test_the_generated_helper_is_current():
    for module in MODULES:
        path = PACKAGE / f"{module}.py"
        assert path.read_text(encoding="utf-8") == saved_module(module), (
            f"gpucourse/{module}.py is stale: run `python -m graders build`")


# -- (b) nothing to copy from a released test cell ----------------------------------------------------
def _shape(node: ast.AST) -> list[str]:
    """What a body does, without its names: node types, attributes and called names, in order."""
    tokens = []
    body = node.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else [node]
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue   # a docstring
        for sub in ast.walk(stmt):
            tokens.append(type(sub).__name__)
            if isinstance(sub, ast.Attribute):
                tokens.append("." + sub.attr)
    return tokens


def looks_like(defined: ast.AST, answer: Answer) -> str | None:
    """Why ``defined`` (a def or class of a test cell) is a reference for ``answer``, or None."""
    if isinstance(defined, (ast.FunctionDef, ast.AsyncFunctionDef)) and answer.params:
        a = defined.args
        if [p.arg for p in a.posonlyargs + a.args][:len(answer.params)] == answer.params:
            return f"takes {answer.name}'s arguments"
    if isinstance(answer.node, ast.Assign):
        return None
    mine, theirs = _shape(defined), _shape(answer.node)
    if len(theirs) >= 12 and difflib.SequenceMatcher(None, mine, theirs, autojunk=False).ratio() >= 0.75:
        return f"reads like the reference answer of {answer.name}"
    return None


def released_test_cells(name):
    nb = nbtools.read(NOTEBOOKS / f"{name}.ipynb")
    return [c for c in nb.cells if nbtools.is_test_cell(c)]


@pytest.mark.parametrize("name", NAMES)
def test_no_visible_test_cell_holds_a_reference(name):
    mine = [a for a in ALL if a.notebook == name]
    problems = []
    for cell in released_test_cells(name):
        assert "BEGIN HIDDEN TESTS" not in cell.source
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for answer in mine:
                    why = looks_like(node, answer)
                    if why:
                        problems.append(f"{cell.id} defines {node.name}, which {why}")
    assert not problems, f"notebooks/{name}.ipynb: " + "; ".join(problems)


REFERENCE = re.compile(r"reference", re.I)


@pytest.mark.parametrize("name", NAMES)
def test_no_released_cell_imports_reference_code(name):
    problems = []
    for cell in nbtools.read(NOTEBOOKS / f"{name}.ipynb").cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue   # a skeleton with a gap to fill
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if REFERENCE.search(alias.name) or REFERENCE.search(alias.asname or ""):
                        problems.append(f"{cell.id}: {ast.unparse(node)}")
    assert not problems, f"notebooks/{name}.ipynb imports reference code: {problems}"


# -- the checks that the rules above rely on --------------------------------------------------------------
def test_the_rules_catch_what_they_are_for():
    sync = next(a for a in ALL if a.name == "synchronize")
    amp = next(a for a in ALL if a.name == "amp_forward")
    copied = ast.parse(amp.source).body[0]
    copied.name, copied.args.args[0].arg = "_check_amp", "net"   # renamed, same body
    assert looks_like(copied, amp) == "reads like the reference answer of amp_forward"
    assert looks_like(ast.parse("def _f(device):\n    pass").body[0], sync) == "takes synchronize's arguments"
    assert looks_like(ast.parse("def _hooks(model):\n    return 0").body[0], amp) is None

    def transfer_model(nbytes, gb_per_s, latency_us=0.0):
        return latency_us / 1e3 + nbytes / gb_per_s / 1e6
    transfer = next(a for a in ALL if a.name == "transfer_ms")
    assert drop_in(transfer_model, transfer) and not drop_in(lambda n, g: 0, transfer)


# -- gpucourse.origin.borrowed, which the guarded tests rely on ----------------------------------------------
def test_borrowed_tells_own_answers_from_the_package_s():
    import functools

    import gpucourse.env
    import gpucourse.timing
    from gpucourse.origin import borrowed

    sync_answers, time_answers = [gpucourse.timing.synchronize], [gpucourse.timing.time_ms, gpucourse.timing.median_ms]
    namespace = {"torch": torch}
    exec(next(a for a in ALL if a.name == "synchronize").source, namespace)
    exec(next(a for a in ALL if a.name == "time_ms").source, namespace)
    assert borrowed(namespace["synchronize"], sync_answers) is None
    assert borrowed(namespace["time_ms"], time_answers) is None
    assert borrowed(functools.wraps(namespace["time_ms"])(lambda *a: namespace["time_ms"](*a)), time_answers) is None
    # the student's own time_ms that calls gpucourse's synchronize still is the student's time_ms
    namespace["synchronize"] = gpucourse.timing.synchronize
    assert borrowed(namespace["time_ms"], time_answers) is None

    taken = {"import": gpucourse.timing.synchronize, "partial": functools.partial(gpucourse.timing.synchronize)}
    exec("import gpucourse.timing\ndef attr(device):\n    return gpucourse.timing.synchronize(device)\n"
         "from gpucourse.timing import synchronize as _s\ndef alias(device):\n    _s(device)\n"
         "def inner(device):\n    from gpucourse.timing import synchronize\n    synchronize(device)\n"
         "def default(device, _f=gpucourse.timing.synchronize):\n    _f(device)\n", ns := {})
    taken.update({k: ns[k] for k in ("attr", "alias", "inner", "default")})
    taken["wrapped"] = functools.wraps(gpucourse.timing.synchronize)(lambda d: None)
    for how, fn in taken.items():
        assert borrowed(fn, sync_answers) == "gpucourse.timing", how
    assert borrowed(gpucourse.env.best_device, [gpucourse.env.best_device]) == "gpucourse.env"
    exec("def pick_device():\n    return gpucourse.env.best_device()\n", ns := {"gpucourse": gpucourse})
    assert borrowed(ns["pick_device"], [gpucourse.env.best_device]) == "gpucourse.env"
