"""The in-kernel guard's factories (graders/grading/guard.py, guard_os.py), each on its own, in pytest's process.

The guard's text is executed into a fresh dict, as the install cell does, and each factory is called with fakes.
Nothing here installs an audit hook, registers the quick exit or replaces ``sys.stdout``: the whole guard runs in a
child process (test_guard_unit.py, and the install cell below). What keeps the guard's state out of the student's
reach is checked twice: statically (every name at the top level is a function, and no closure reads a global) and
by behaviour (closures keep working in a namespace where every helper is deleted and every built-in redefined).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import dis
import fractions
import hashlib
import hmac
import io
import json
import os
import posixpath
import subprocess
import sys
import sysconfig
import textwrap
import types

import pytest

from graders.grading.guard_cells import guard_sources
from graders.paths import REPO

GUARD = REPO / "graders" / "grading" / "guard.py"
GUARD_OS = REPO / "graders" / "grading" / "guard_os.py"


def load(*paths) -> dict:
    """A fresh namespace holding the guard's functions, as the install cell defines them."""
    ns = {"__name__": "__main__", "__builtins__": builtins}
    for path in paths:
        exec(compile(path.read_text(), str(path), "exec"), ns)
    return ns


@pytest.fixture
def g():
    return types.SimpleNamespace(**{k: v for k, v in load(GUARD, GUARD_OS).items() if k.startswith("_")})


@pytest.fixture
def spoil():
    """``spoil(ns)``: what the install cell's ``del`` and then a student leave in the namespace the guard's functions
    were defined in: none of the guard's helpers, and every built-in redefined as a string."""
    def spoil(ns_holder):
        ns = ns_holder.__globals__ if isinstance(ns_holder, types.FunctionType) else ns_holder
        for name in [k for k in ns if k.startswith("_") and not k.startswith("__")]:
            del ns[name]
        for name in dir(builtins):
            if not name.startswith("__"):
                ns[name] = "spoiled"
    return spoil


def state(**extra):
    return {"seq": 0, "phase": None, "busy": 0, "in_hook": False, "events": [], "printed": 0, "truncated": False,
            **extra}


class Recorder:
    """A fake ``record(kind, what, severe)`` / ``log(kind, **data)`` / ``changed(what, undo, *args)``."""

    def __init__(self):
        self.calls = []

    def record(self, kind, what, severe):
        self.calls.append((kind, what, severe))

    def log(self, kind, **data):
        self.calls.append((kind, data))


# ---------------------------------------------------------------------------------------------
# the state stays out of reach: the static side
# ---------------------------------------------------------------------------------------------
def nested_code(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from nested_code(const)


def globals_read_by_closures(path) -> dict[str, list[str]]:
    """For each function nested in a top-level function of ``path`` (closures, comprehensions, methods), the
    global names it reads: it runs when the notebook's globals are the student's."""
    found = {}
    module = compile(path.read_text(), str(path), "exec")
    for top in module.co_consts:
        if not isinstance(top, types.CodeType):
            continue
        for code in nested_code(top):
            names = sorted({i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"})
            found[f"{code.co_qualname} (line {code.co_firstlineno})"] = names
    return found


@pytest.mark.parametrize("path", [GUARD, GUARD_OS], ids=lambda p: p.name)
def test_no_closure_reads_a_global(path):
    found = globals_read_by_closures(path)
    assert len(found) >= (60 if path == GUARD else 5), f"found only {sorted(found)}"  # the walk reaches them
    assert {name: names for name, names in found.items() if names} == {}


@pytest.mark.parametrize("path", [GUARD, GUARD_OS], ids=lambda p: p.name)
def test_the_top_level_holds_only_private_functions(path):
    """No state in the notebook's namespace: every top-level statement but the docstring defines a function
    whose name starts with ``_`` (the install cell deletes them all)."""
    body = ast.parse(path.read_text()).body
    assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)  # the docstring
    assert all(isinstance(node, ast.FunctionDef) and node.name.startswith("_") for node in body[1:]), \
        [ast.dump(node)[:80] for node in body[1:] if not isinstance(node, ast.FunctionDef)]


def test_the_closure_checker_sees_a_global_read(tmp_path):
    source = tmp_path / "guard_like.py"
    source.write_text('"""doc"""\n\n\ndef _make():\n    def closure(x):\n        return isinstance(x, int)\n'
                      "    return closure\n")
    assert globals_read_by_closures(source) == {"_make.<locals>.closure (line 5)": ["int", "isinstance"]}


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "guard_os"])
def test_the_install_cell_leaves_only_the_guard_object(tmp_path, sandboxed):
    """The real install cell, run in a fresh namespace (in a child: it installs the audit hook and the quick exit):
    afterwards no helper of guard.py / guard_os.py is left, only ``_grader_guard_<token>``."""
    config = {"preload": ["json"], "trusted_sources": [], "library_roots": [], "protected_modules": ["json"],
              "protected_prefixes": [], "test_names": [], "namespace_modules": {}, "graded": ["f"],
              "max_output_chars": 10000, "poisoned": [], "sandboxed": sandboxed, "cwd": str(tmp_path),
              "write_roots": [], "read_deny": []}
    cell = guard_sources("tok123", config, ["test_a"])["top"]
    (tmp_path / "cell.py").write_text(cell)
    child = textwrap.dedent("""
        import json, sys
        ns = {"__name__": "__main__"}
        exec(compile(open(sys.argv[1]).read(), "/nonexistent/cell-0.py", "exec"), ns)
        print(json.dumps(sorted(k for k in ns if k != "__builtins__")))
        sys.stdout.flush()  # the guard's quick exit skips the interpreter's own flush
    """)
    env = {**os.environ, "GRADER_GUARD_KEY": "k" * 64, "GRADER_GUARD_LOG": str(tmp_path / "guard.log")}
    proc = subprocess.run([sys.executable, "-c", child, str(tmp_path / "cell.py")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    left = json.loads(proc.stdout.splitlines()[-1])
    # __doc__: the docstring of the last file pasted (as before, and as any cell with a docstring does)
    assert [name for name in left if not name.startswith("__")] == ["_grader_guard_tok123"], left


# ---------------------------------------------------------------------------------------------
# the small helpers
# ---------------------------------------------------------------------------------------------
def test_bound_builtins_are_the_real_ones(g):
    assert g._bound_builtins("isinstance", "len", "TypeError") == (isinstance, len, TypeError)


def test_private_module_is_a_copy_nobody_else_holds(g):
    private = g._private_module("hmac", marker=1)
    assert private is not hmac and private not in sys.modules.values() and private.marker == 1
    assert private.new(b"k", b"x", hashlib.sha256).hexdigest() == hmac.new(b"k", b"x", hashlib.sha256).hexdigest()


def test_copy_of_a_module_keeps_what_it_had(g):
    original = types.ModuleType("m")
    original.f = len
    twin = g._copy_of(original)
    original.f = max
    assert twin.f is len and twin.__name__ == "m"


def test_forget_environment_value(g, monkeypatch):
    monkeypatch.setenv("GUARD_FACTORY_SECRET", "s3cret")
    assert g._forget_environment_value("GUARD_FACTORY_SECRET") == "s3cret"
    assert "GUARD_FACTORY_SECRET" not in os.environ
    assert g._forget_environment_value("GUARD_FACTORY_SECRET") == ""


def test_register_quick_exit_ends_the_process_at_exit(g, monkeypatch):
    registered = []
    monkeypatch.setitem(sys.modules, "atexit", types.SimpleNamespace(register=lambda *a: registered.append(a)))
    g._register_quick_exit()
    assert registered == [(os._exit, 0)]


def test_preload_imports_what_exists_and_skips_the_rest(g, monkeypatch):
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    g._preload(["colorsys", "no_such_module_for_the_guard"])
    assert "colorsys" in sys.modules


# ---------------------------------------------------------------------------------------------
# paths, the log, where code comes from
# ---------------------------------------------------------------------------------------------
def test_path_tools(g, spoil, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    under, resolve, secret = g._make_path_tools(posixpath)
    spoil(under)
    assert under("/a/b", ["/a"]) and under("/a", ["/a"]) and not under("/ab", ["/a"])
    real = os.path.realpath(tmp_path)
    assert resolve("x.txt") == resolve(b"x.txt") == resolve(tmp_path / "x.txt") == f"{real}/x.txt"
    assert resolve(3) is resolve(None) is resolve(object()) is None
    assert secret("/proc/self/environ") == f"/proc/{os.getpid()}/environ"
    assert secret(b"/proc/self/mem") == f"/proc/{os.getpid()}/mem"
    assert secret("/proc/self/fd/99999") == f"/proc/{os.getpid()}/fd/99999"
    assert secret("/proc/self/status") is secret("x.txt") is secret(3) is None


def test_log_lines_are_signed_numbered_and_kept_private(g, spoil, tmp_path, monkeypatch):
    fd = os.open(tmp_path / "log", os.O_WRONLY | os.O_CREAT, 0o600)
    st = state()
    log, record = g._make_log(fd, b"key", st)
    spoil(log)
    monkeypatch.setattr(hmac, "new", lambda *a, **k: pytest.fail("the notebook's hmac.new was handed the key"))
    monkeypatch.setattr(json, "dumps", lambda *a, **k: "forged")
    log("install", seconds=1)
    st["phase"] = "test_a"
    record("file", "reading x", severe=False)
    os.close(fd)
    lines = (tmp_path / "log").read_text().splitlines()
    bodies = []
    for line in lines:
        mac, _, body = line.partition(" ")
        assert mac == hmac.HMAC(b"key", body.encode(), hashlib.sha256).hexdigest()
        bodies.append(json.loads(body))
    assert bodies == [{"kind": "install", "seconds": 1, "seq": 0},
                      {"kind": "event", "category": "file", "what": "reading x", "during": "test_a", "severe": True,
                       "seq": 1}]
    assert st["seq"] == 2 and st["events"] == [{"what": "reading x", "during": "test_a", "severe": True}]


def test_cell_hash_is_the_graders(g, spoil):
    from graders.grading import guard_cells

    cell_hash = g._make_cell_hash()
    spoil(cell_hash)
    text = "\n  x = 1   \nassert x == 1\t\n\n"
    assert cell_hash(text) == guard_cells.source_hash(text) == cell_hash("x = 1\nassert x == 1")
    assert cell_hash(text) != cell_hash("x = 2")


def test_library_roots(g, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an empty root is none, not the working folder
    (tmp_path / "lib").mkdir()
    lib_roots, stdlib_roots = g._library_roots({"library_roots": [str(tmp_path / "lib"), ""]}, posixpath)
    assert os.path.realpath(tmp_path) not in lib_roots and os.path.realpath(tmp_path / "lib") in lib_roots
    assert os.path.realpath(sys.prefix) in lib_roots
    assert stdlib_roots == [os.path.realpath(sysconfig.get_paths()["stdlib"])] and "" not in lib_roots


def frame(filename, line, back=None):
    return types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=filename), f_lineno=line, f_back=back)


def test_origins_and_callers(g, spoil, tmp_path):
    import linecache

    roots = g._library_roots({"library_roots": []}, posixpath)
    under = g._make_path_tools(posixpath)[0]
    cell_hash, cache = g._make_cell_hash(), {}
    origin, caller = g._make_origins({"trusted_sources": [cell_hash("assert f() == 1")]}, roots, posixpath, under,
                                     cell_hash, cache)
    spoil(origin)
    for name, text in (("trusted", "assert f() == 1\n"), ("student", "f = lambda: 1\n")):
        linecache.cache[f"/nonexistent/{name}.py"] = (len(text), None, [text], f"/nonexistent/{name}.py")
    assert origin("/nonexistent/trusted.py") == "trusted" and origin("/nonexistent/student.py") == "student"
    assert origin("/nonexistent/unknown.py") == "student"  # no lines: not a cell of the course
    assert origin(json.__file__) == "library" and origin("<string>") == "student" and origin("rel.py") == "student"
    assert origin("<grader-guard>") == "guard" and cache[json.__file__] == "library"
    cache["/nonexistent/cell.py"] = "guard"
    assert origin("/nonexistent/cell.py") == "guard"

    chain = frame(json.__file__, 10, frame("/nonexistent/student.py", 7, frame("/nonexistent/trusted.py", 1)))
    assert caller(chain, True) == ("student", "/nonexistent/student.py", 7)
    assert caller(chain, False) == ("library", json.__file__, 10)
    ipython = f"{os.path.dirname(json.__file__)}/site-packages/IPython/core/x.py"
    assert caller(frame(ipython, 3, frame("/nonexistent/trusted.py", 2)), True)[0] == "trusted"
    assert caller(None, True) == ("library", "", 0)


# ---------------------------------------------------------------------------------------------
# the audit hook
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def hook_parts(g):
    st, rec, ids = state(), Recorder(), set()
    who = ["student"]
    secret = g._make_path_tools(posixpath)[2]
    hook = g._make_audit_hook(st, ids, secret, lambda frame, skip: (who[0], "cell.py", 7), rec.record)
    return hook, st, rec, ids, who


def test_audit_hook_refuses_the_processs_own_secrets(hook_parts, spoil):
    hook, st, rec, _ids, _who = hook_parts
    spoil(hook)
    with pytest.raises(PermissionError, match="reading /proc/.*/environ"):
        hook("open", ("/proc/self/environ", "r", os.O_RDONLY))
    with pytest.raises(PermissionError, match="writing /proc/.*/mem"):
        hook("open", ("/proc/self/mem", "w", os.O_WRONLY))
    hook("open", ("notes.txt", "r", os.O_RDONLY))
    assert [(kind, what.split()[0], severe) for kind, what, severe in rec.calls] == [
        ("file", "reading", True), ("file", "writing", True)]
    assert st["in_hook"] is False


def test_audit_hook_records_what_student_code_does(hook_parts):
    hook, st, rec, ids, who = hook_parts
    protected = types.SimpleNamespace(__qualname__="torch.nn.Module")
    ids.add(id(protected))
    hook("sys.settrace", (None,))
    hook("gc.get_objects", ())
    hook("ctypes.call_function", (0, ()))
    hook("ctypes.dlopen", ("libc.so.6",))
    hook("object.__setattr__", (protected, "forward", None))
    hook("object.__setattr__", (object(), "forward", None))
    assert rec.calls == [("suspect", "installed a trace function (sys.settrace) at line 7", True),
                         ("suspect", "searched the interpreter's objects (gc.get_objects) at line 7", False),
                         ("suspect", "used ctypes (ctypes.call_function) at line 7", True),
                         ("patch", "changed torch.nn.Module.forward at line 7", True)]
    rec.calls.clear()
    who[0] = "library"
    hook("sys.settrace", (None,))
    who[0], st["busy"] = "student", 1
    hook("sys.settrace", (None,))
    hook("open", ("/proc/self/environ", "r", 0))
    assert rec.calls == []


def test_path_rules_and_children(g, spoil, tmp_path):
    rec = Recorder()
    under, resolve, _secret = g._make_path_tools(posixpath)
    check_path, is_write = g._make_path_rules({"cwd": str(tmp_path), "write_roots": [],
                                               "read_deny": [str(tmp_path / "solutions")]}, rec.record, resolve, under)
    is_child = g._make_is_child()
    spoil(check_path)
    assert is_write("a", None) and is_write("r+", None) and is_write(None, os.O_RDWR)
    assert not is_write("rb", os.O_RDONLY) and not is_write(None, None)
    for path in (tmp_path / "x.txt", "/dev/null", 3):
        check_path(path, True, "open")
    check_path("/etc/hostname", False, "open")
    with pytest.raises(PermissionError):
        check_path("/etc/guard-factory-test", True, "os.remove")
    assert rec.calls == [("file", "writing /etc/guard-factory-test (os.remove)", True)]
    assert not is_child(os.getpid()) and not is_child(-5)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert is_child(child.pid)
    finally:
        child.kill()
        child.wait()


def test_os_rules_hook(g, spoil, tmp_path):
    rec, who = Recorder(), ["student"]
    tools = g._make_path_tools(posixpath)
    config = {"cwd": str(tmp_path / "nb"), "write_roots": [str(tmp_path / "tmp")],
              "read_deny": [str(tmp_path / "solutions")]}
    quiet = [False]
    hook = g._make_os_rules_hook(config, rec.record, lambda frame, skip: (who[0], "cell.py", 3),
                                 lambda: quiet[0], tools[1], tools[0])
    spoil(hook)
    hook("open", (str(tmp_path / "nb" / "out.txt"), "w", None))
    hook("open", (str(tmp_path / "elsewhere.txt"), "r", None))
    with pytest.raises(PermissionError, match="writing"):
        hook("open", (str(tmp_path / "elsewhere.txt"), None, os.O_WRONLY | os.O_CREAT))
    with pytest.raises(PermissionError, match="reading"):
        hook("open", (str(tmp_path / "solutions" / "a.py"), "r", None))
    with pytest.raises(PermissionError, match="start programs"):
        hook("subprocess.Popen", ("ls", ["ls"]))
    with pytest.raises(PermissionError, match="signal"):
        hook("os.kill", (1, 9))
    hook("os.kill", (os.getpid(), 0))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        hook("os.kill", (child.pid, 0))  # the kernel's own child
    finally:
        child.kill()
        child.wait()
    quiet[0] = True
    hook("os.remove", (str(tmp_path / "elsewhere.txt"),))
    assert [kind for kind, _what, _severe in rec.calls] == ["file", "file", "spawn", "signal"]


# ---------------------------------------------------------------------------------------------
# the snapshot
# ---------------------------------------------------------------------------------------------
def test_attribute_tools(g, spoil):
    unwrap, safe_callable = g._make_attribute_tools()
    spoil(unwrap)

    def f():
        pass

    class Liar:
        @property
        def __class__(self):
            raise RuntimeError("no")

    assert unwrap(staticmethod(f)) is unwrap(classmethod(f)) is unwrap(property(f)) is unwrap(f) is f
    assert safe_callable(f) and safe_callable(json) and safe_callable(property(f)) and safe_callable(int)
    assert not safe_callable(3) and not safe_callable(Liar())


@pytest.fixture
def protected_module(monkeypatch):
    mod = types.ModuleType("guard_factory_protected")

    class Base:
        def step(self):
            return 1

    class Model(Base):
        @staticmethod
        def make():
            return 2

    def helper(x=1, *, y=2):
        return x + y

    for value in (Base, Model, helper):
        value.__module__ = mod.__name__
    mod.Base, mod.Model, mod.helper, mod.CONSTANT = Base, Model, helper, 3
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    return mod


def test_protected_modules(g, protected_module, monkeypatch):
    inner = types.ModuleType("guard_factory_pkg.inner")
    monkeypatch.setitem(sys.modules, inner.__name__, inner)
    monkeypatch.setitem(sys.modules, "guard_factory_pkgx", types.ModuleType("guard_factory_pkgx"))
    monkeypatch.setitem(sys.modules, "guard_factory_none", None)
    modules = g._protected_modules({"protected_modules": ["guard_factory_protected", "guard_factory_none"],
                                    "protected_prefixes": ["guard_factory_pkg"]})
    assert modules == {"guard_factory_protected": protected_module, "guard_factory_pkg.inner": inner,
                       "builtins": builtins}


def test_snapshot_holds_the_protected_modules(g, protected_module):
    ids = set()
    unwrap, safe_callable = g._make_attribute_tools()
    mod = protected_module
    snap = g._take_snapshot({mod.__name__: mod, "builtins": builtins}, ids, unwrap, safe_callable)
    assert set(snap["modules"]) == {"guard_factory_protected", "builtins"}
    assert snap["modules"]["guard_factory_protected"] == (mod, {"Base": mod.Base, "Model": mod.Model,
                                                                "helper": mod.helper})
    assert "input" not in snap["modules"]["builtins"][1] and "len" in snap["modules"]["builtins"][1]
    assert {id(mod.Base), id(mod.Model)} <= set(snap["classes"]) and id(mod.Base.step) in snap["code"]
    assert id(object) not in snap["classes"]
    assert id(mod.Model.__dict__["make"].__func__) in snap["code"]
    assert snap["code"][id(mod.helper)] == (mod.helper, mod.helper.__code__, (1,), {"y": 2})
    assert {id(mod), id(mod.Model), id(mod.helper)} <= ids
    assert snap["sysmodules"]["guard_factory_protected"] is mod and snap["sys"]["stdout"] is sys.stdout
    assert snap["sys"]["meta_path"] == sys.meta_path and snap["sys"]["meta_path"] is not sys.meta_path


def test_notebook_namespace(g):
    shell, user_ns, names, initial = g._notebook_namespace({"test_names": None})  # outside IPython
    assert (shell, user_ns, initial) == (None, {}, {}) and {"len", "isinstance"} <= names and "__import__" not in names
    ns = load(GUARD)
    user_ns = {"max": 1, "len": len, "sorted": sorted}
    shell = types.SimpleNamespace(user_ns=user_ns)
    ns["get_ipython"] = lambda: shell
    assert ns["_notebook_namespace"]({"test_names": ["max", "sorted", "x"]}) == (
        shell, user_ns, {"max", "sorted"}, {"max": 1, "sorted": sorted})


# ---------------------------------------------------------------------------------------------
# what changed since the snapshot
# ---------------------------------------------------------------------------------------------
def test_diff_reports_and_restores_only_when_asked(g, spoil):
    st, undone, busy_seen = state(), [], []

    def check(changed):
        busy_seen.append(st["busy"])
        changed("x was replaced", undone.append, "x")

    diff = g._make_diff(st, [check, lambda changed: changed("y was added", undone.append, "y")])
    spoil(diff)
    assert diff(restore=False) == ["x was replaced", "y was added"] and undone == []
    assert diff(restore=True) == ["x was replaced", "y was added"] and undone == ["x", "y"]
    assert busy_seen == [1, 1] and st["busy"] == 0

    def broken(changed):
        raise RuntimeError("check failed")

    with pytest.raises(RuntimeError):
        g._make_diff(st, [broken])(restore=True)
    assert st["busy"] == 0


def run_check(g, check, restore=True):
    return g._make_diff(state(), [check])(restore=restore)


def library_function(name, wrapped=None):
    """A function whose code is in a library file (json's), as a library's own wrapper would be."""
    code = compile(f"def {name}(*a):\n    pass\n", json.__file__, "exec")
    fn = types.FunctionType(code.co_consts[0], {})
    if wrapped is not None:
        fn.__wrapped__ = wrapped
    return fn


def test_library_checks(g, spoil):
    library_wrapper, genuine_library = g._make_library_checks(
        lambda filename: "library" if filename == json.__file__ else "student")
    spoil(library_wrapper)

    def student(*a):
        pass

    assert library_wrapper(library_function("dumps", student), student)
    assert not library_wrapper(library_function("dumps", student), len)
    student.__wrapped__ = student
    assert not library_wrapper(student, student)
    assert genuine_library(json.dumps)  # "def dumps" is where its code says
    assert not genuine_library(library_function("sneaky"))  # compiled under json's file name, defined nowhere there
    assert not genuine_library(student) and not genuine_library(len)


def test_trace_check(g, spoil):
    check = g._make_trace_check()
    spoil(check)
    assert run_check(g, check) == []
    try:
        sys.setprofile(lambda *a: None)
        assert run_check(g, check, restore=False) == ["a trace or profile function was active"]
        assert sys.getprofile() is not None
        assert run_check(g, check) == ["a trace or profile function was active"]
        assert sys.getprofile() is None
    finally:
        sys.setprofile(None)


def test_sys_modules_check(g, spoil, monkeypatch):
    mod = types.ModuleType("guard_factory_m")
    monkeypatch.setitem(sys.modules, "guard_factory_m", types.ModuleType("impostor"))
    check = g._make_sys_modules_check({"sysmodules": {"guard_factory_m": mod, "builtins": None}})
    spoil(check)
    assert run_check(g, check) == ["sys.modules['guard_factory_m'] was replaced"]
    assert sys.modules["guard_factory_m"] is mod and run_check(g, check) == []


def test_module_check(g, spoil):
    mod = types.ModuleType("m")
    mod.f, mod.g = len, max
    snapshot = {"modules": {"m": (mod, {"f": len, "g": max})}}
    check = g._make_module_check(snapshot, lambda new, old: getattr(new, "__wrapped__", None) is old)
    spoil(check)
    wrapper = library_function("f", len)
    mod.f, mod.g = wrapper, min
    assert run_check(g, check) == ["m.g was replaced"]
    assert mod.g is max and mod.f is wrapper and snapshot["modules"]["m"][1]["f"] is wrapper  # the library's own


def test_class_check(g, spoil, protected_module):
    mod = protected_module
    Base, Model = mod.Base, mod.Model
    snapshot = {"classes": {id(k): (k, {n: v for n, v in vars(k).items() if callable(v) or n == "make"}, set(vars(k)))
                            for k in (Base, Model)}}
    snapshot["classes"][id(int)] = (int, {"bit_length": object()}, set(vars(int)))  # cannot be put back
    genuine = []
    wrapper, genuine_library = (lambda new, old: False), (lambda fn: fn in genuine)
    check = g._make_class_check(snapshot, g._make_class_replaced(wrapper, genuine_library),
                                g._make_class_added(wrapper, genuine_library, g._make_attribute_tools()[1]))
    spoil(check)
    original = Base.step
    Base.step = lambda self: 99
    Model.step = lambda self: 98  # over the inherited one
    Model.flag = True  # data: not what tests call
    assert run_check(g, check) == [f"{mod.__name__}.{Base.__qualname__}.step was replaced",
                                   f"{mod.__name__}.{Model.__qualname__}.step was added",
                                   "builtins.int.bit_length was replaced"]
    assert Base.step is original and "step" not in vars(Model) and Model.flag is True
    assert "flag" in snapshot["classes"][id(Model)][2]  # known now: not looked at again
    assert run_check(g, check) == ["builtins.int.bit_length was replaced"]
    profiled = library_function("step")
    genuine.append(profiled)
    Model.step = profiled  # a library's own wrapper on the subclass it profiles
    assert run_check(g, check, restore=False) == ["builtins.int.bit_length was replaced"]
    assert vars(Model)["step"] is profiled and snapshot["classes"][id(Model)][1]["step"] is profiled


def test_code_check(g, spoil, protected_module):
    fn = protected_module.helper
    check = g._make_code_check({"code": {id(fn): (fn, fn.__code__, fn.__defaults__, fn.__kwdefaults__)}})
    spoil(check)
    code, message = fn.__code__, [f"the code of {fn.__module__}.{fn.__qualname__} was replaced"]
    fn.__code__ = (lambda x=1, *, y=2: 0).__code__
    assert run_check(g, check) == message and fn.__code__ is code and fn() == 3
    fn.__kwdefaults__ = {"y": 5}
    assert run_check(g, check) == message and fn() == 3
    fn.__defaults__ = (7,)
    assert run_check(g, check) == message and fn() == 3


def test_import_check(g, spoil, monkeypatch):
    snapshot = {"sys": {"stdout": sys.stdout, "stderr": sys.stderr, "displayhook": sys.displayhook,
                        "__import__": builtins.__import__, "meta_path": list(sys.meta_path),
                        "path_hooks": list(sys.path_hooks)}}
    capped = io.StringIO()
    streams = {"stdout": capped}
    check = g._make_import_check(snapshot, streams)
    spoil(check)
    monkeypatch.setattr(sys, "stdout", capped)  # the guard's own capped stream is no change
    monkeypatch.setattr(sys, "displayhook", print)
    real_import = builtins.__import__
    monkeypatch.setattr(builtins, "__import__", lambda *a, **k: real_import(*a, **k))
    monkeypatch.setattr(sys, "meta_path", sys.meta_path)
    monkeypatch.setattr(sys, "path_hooks", sys.path_hooks)
    sys.path_hooks.append(print)
    assert run_check(g, check) == ["sys.displayhook was replaced", "builtins.__import__ was replaced",
                                   "the import system (sys.meta_path / sys.path_hooks) was changed"]
    assert sys.displayhook is snapshot["sys"]["displayhook"] and builtins.__import__ is snapshot["sys"]["__import__"]
    assert sys.path_hooks == snapshot["sys"]["path_hooks"]
    sys.meta_path.insert(0, object())
    assert run_check(g, check) == ["the import system (sys.meta_path / sys.path_hooks) was changed"]
    assert sys.meta_path == snapshot["sys"]["meta_path"]


def test_shell_and_names_checks(g, spoil):
    shell = types.SimpleNamespace(showtraceback=print)  # an attribute of the shell itself: a replacement
    user_ns = {"__builtins__": {}, "js": json, "max": "mine", "sorted": "mine too", "f": "graded", "len": len}
    notebook = (shell, user_ns, {"max", "sorted", "f", "len"}, {"sorted": sorted})
    shell_check = g._make_shell_check(shell, user_ns)
    names_check = g._make_names_check({"namespace_modules": {"js": "json", "gone": "nothing"}, "graded": ["f"]},
                                      {"sysmodules": {"json": io}}, notebook)
    no_shell = [g._make_shell_check(None, {"__builtins__": {}}),
                g._make_names_check({"namespace_modules": {}, "graded": []}, {"sysmodules": {}},
                                    (None, {"max": 1}, {"max"}, {}))]
    spoil(shell_check)
    check = g._make_diff(state(), [shell_check, names_check])
    changes = check(restore=True)
    assert changes[:3] == ["IPython's showtraceback was replaced", "__builtins__ was replaced",
                           "the name 'js' no longer means the io module"]
    assert sorted(changes[3:]) == ["the built-in 'max' was redefined", "the built-in 'sorted' was redefined"]
    assert not hasattr(shell, "showtraceback") and user_ns["__builtins__"] is builtins and user_ns["js"] is io
    assert "max" not in user_ns and user_ns["sorted"] is sorted and user_ns["f"] == "graded"
    assert check(restore=True) == []
    assert g._make_diff(state(), no_shell)(restore=True) == []


# ---------------------------------------------------------------------------------------------
# graded functions, output, cells, checkpoints
# ---------------------------------------------------------------------------------------------
class Always:
    def __eq__(self, other):
        return True


class HashableAlways(Always):
    __hash__ = object.__hash__


@dataclasses.dataclass
class Point:
    x: int


class Trusted:
    def __eq__(self, other):
        return True


def test_return_inspector(g, spoil):
    roots = g._library_roots({"library_roots": []}, posixpath)
    trusted_file = Trusted.__eq__.__code__.co_filename + ":trusted"
    Trusted.__eq__.__code__ = Trusted.__eq__.__code__.replace(co_filename=trusted_file)
    class_problem = g._make_class_problem(lambda filename: "trusted" if filename == trusted_file else "student",
                                          posixpath, g._make_path_tools(posixpath)[0], roots[0],
                                          g._make_attribute_tools()[0])
    inspect_value = g._make_return_inspector(class_problem)
    spoil(inspect_value)
    problem = "an object of class Always that defines its own __eq__"
    assert class_problem(Always) == class_problem(HashableAlways) == problem and class_problem(int) is None
    assert inspect_value(Always()) == problem
    assert inspect_value([1, (2, {"k": Always()})]) == problem and inspect_value({HashableAlways(): 1}) == problem
    assert inspect_value(1) is inspect_value("x") is inspect_value(None) is inspect_value([1.0, b"x"]) is None
    assert inspect_value(Point(1)) is None  # the dataclass's generated __eq__
    assert inspect_value(Trusted()) is None  # written in a course cell
    assert inspect_value(fractions.Fraction(1, 3)) is None  # a library's class
    deep = Always()
    for _ in range(8):
        deep = [deep]
    assert inspect_value(deep) is None  # past the depth the guard looks


def test_graded_wrappers_wrap_unwrap_and_poison(g, spoil):
    st, rec = state(), Recorder()

    def f(x):
        """f's docstring"""
        return Always() if x else 1

    user_ns = {"f": f, "g": 3}
    wrapper = g._make_wrapper(st, lambda v: "lies" if isinstance(v, Always) else None, rec.record)
    wrap, unwrap, poison = g._make_graded_wrappers({"graded": ["f", "g", "h"]}, user_ns, wrapper)
    spoil(wrap)
    wrap()
    wrapped = user_ns["f"]
    assert wrapped is not f and wrapped.__doc__ == "f's docstring" and wrapped._grader_wrapped
    wrap()
    assert user_ns["f"] is wrapped  # not wrapped twice
    assert wrapped(0) == 1 and rec.calls == []
    wrapped(1)
    assert rec.calls == [("return", "f returned lies", True)] and st["busy"] == 0
    unwrap()
    assert user_ns["f"] is f and user_ns["g"] == 3
    poison()
    with pytest.raises(RuntimeError, match="f stopped the kernel"):
        user_ns["f"](1)
    unwrap()
    assert user_ns["f"] is f


def test_output_cap(g, spoil):
    st = state()
    capped = g._make_output_cap({"max_output_chars": 10}, st)(io.StringIO())
    spoil(type(capped).write)
    assert capped.write("12345678") == 8 and capped.write("12345678") == 8 and capped.write("more") == 4
    capped.write("and more")
    cut = "\n... output cut by the autograder after 10 characters in this cell ...\n"
    assert capped.getvalue() == "1234567812345678" + cut
    assert st["truncated"] and st["printed"] == 16


def test_on_cell_resets_the_cap_and_logs_the_cell(g, spoil):
    st, rec = state(printed=99, truncated=True, phase="test_a"), Recorder()
    cell_hash = g._make_cell_hash()
    on_cell = g._make_on_cell(st, rec.log, cell_hash)
    spoil(on_cell)
    on_cell(types.SimpleNamespace(raw_cell="x = 1  \n"))
    on_cell()
    assert st["printed"] == 0 and not st["truncated"]
    assert rec.calls == [("cell", {"hash": cell_hash("x = 1"), "test": "test_a"}),
                         ("cell", {"hash": cell_hash(""), "test": "test_a"})]


def test_checkpoints(g, spoil):
    st, rec, calls = state(events=[{"what": "old", "during": None}]), Recorder(), []
    graded = (lambda: calls.append("wrap"), lambda: calls.append("unwrap"), lambda: calls.append("poison"))

    def diff(restore):
        calls.append(f"diff {restore}")
        return ["x was replaced"]

    def broken(restore):
        raise ValueError("diff broke")

    guard = g._make_checkpoints({"poisoned": ["test_b"]}, st, rec.log, diff, graded)
    failing = g._make_checkpoints({}, st, rec.log, broken, graded)
    spoil(type(guard).before)
    assert not hasattr(guard, "__dict__")  # nothing to find on the object the notebook holds
    guard.before("test_a")
    assert st["phase"] == "test_a" and st["events"] == []
    st["events"] += [{"what": "patched", "during": "test_a"}, {"what": "elsewhere", "during": None}]
    guard.after("test_a")
    guard.before("test_b")
    assert calls == ["diff True", "wrap", "unwrap", "diff True", "diff True", "poison"]
    assert [c[0] for c in rec.calls] == ["before", "after", "before"]
    assert rec.calls[0][1]["restored"] == ["x was replaced"] and rec.calls[0][1]["test"] == "test_a"
    assert rec.calls[1][1] == {"test": "test_a", "changes": ["x was replaced"],
                               "events": [{"what": "patched", "during": "test_a"}]}
    assert st["phase"] == "test_b"

    with pytest.raises(ValueError):
        failing.after("test_c")
    assert rec.calls[-1] == ("error", {"test": "test_c", "where": "after", "error": "ValueError: diff broke"})


# ---------------------------------------------------------------------------------------------
# the whole guard, in a child that stands in for the kernel
# ---------------------------------------------------------------------------------------------
def test_a_notebooks_own_names_for_builtins_change_nothing_the_guard_does(tmp_path):
    """Names a student may well choose (``type = "adam"``) rebind built-ins in the notebook's globals, which are
    the guard's globals too: the guard's closures call only their own, so the test passes and nothing is found.
    (Before the factories bound every built-in, ``type`` failed this test and ``vars`` broke both checkpoints.)"""
    from tests.helpers.guard_helpers import grade, notebook

    answer = ('type, vars, next, round, float, object, property, setattr = "adam", {}, 0, 2, 1.0, None, "p", 3\n'
              "def f():\n    return [1]\n")
    run = grade(tmp_path, notebook(("answer", "f", answer), ("test", "test_f", "assert f() == [1]")))
    assert run.results and all(error is None for error in run.results.values()), run.results
    report = run.report()
    assert (report.tampering, report.unrepairable) == ([], [])
