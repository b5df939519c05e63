"""The integrity guard that runs *inside* the grading kernel (see docs/grading.md, "Tampering").

``graders.grading.guard_cells.guard_sources`` pastes this file's source into a cell it puts first in every graded
notebook, followed by ``_grader_guard_install(CONFIG, OS_RULES)``; before and after every test cell it adds a
cell that calls ``before(test_id)`` / ``after(test_id)``. What the machine must be protected from (files,
programs, signals, network) is the OS sandbox's job (``graders.grading.sandbox``); where a kernel runs without
it, ``guard_os.py`` is pasted too and ``OS_RULES`` is its ``_grader_guard_os_rules``. Student code runs in the
same interpreter as the tests, and no sandbox can tell a test's ``isinstance`` from the student's, so the guard

- installs a Python audit hook (which no Python code can remove) that records trace functions, ``gc``
  object searches, ``ctypes`` calls and replaced code (``__code__``) of torch / builtins / gpucourse
  functions (Python audits no other attribute write: those are found by the snapshot below), and refuses
  reading the process's own ``/proc`` environment, memory and file descriptors (its log's key and its state:
  the sandbox shows a process itself); it removes its key from the environment the kernel started with, and
  judges paths and signs its log with its own built-ins and private copies of ``posixpath``, ``hmac`` and
  json's encoder;
- takes a snapshot, before any student code, of builtins, of torch, gpucourse and the standard
  modules the tests use (functions, classes, their methods and code objects), and of ``sys``
  hooks; before each test it puts back anything changed, and after each test it reports what
  changed while the test ran;
- wraps the graded functions while a test runs, and reports a returned object whose class was
  written in the notebook and overrides comparison, arithmetic or ``__class__`` (an object whose
  ``__eq__`` is always True);
- caps the characters one cell may print.

Each finding is a line in a log file, signed with a key the kernel receives in its environment
(and removes at once), so the grader can tell the guard's lines from forged ones and notice
missing checkpoints. It needs nothing but the standard library, torch and gpucourse.

How the state stays out of reach: every top-level function here is a factory that runs once, while the install
cell runs (before any student code), takes the state it needs as arguments and returns closures over it. The
state lives only in closure cells, never in the notebook's namespace, and the install cell then deletes every
top-level name of this file. So a closure must never read a global when it runs later: the notebook's globals are
the student's (a helper of this file is gone by then, a built-in may have been redefined). Each factory binds the
built-ins its closures call with :func:`_bound_builtins` (tests/unit/grading/test_guard_factories.py checks that
no closure reads a global).
"""


def _register_quick_exit():
    """When the kernel exits, skip the interpreter's teardown of torch (about a second).

    Registered before anything else the guard does, so it runs after every other exit handler.
    By then the kernel has answered nbgrader's shutdown request and nbgrader has every output;
    only freeing memory and modules is left, which the operating system does faster. The guard's
    log is written unbuffered, so nothing is lost. (No flush of stdout here: nobody reads it any
    more, and ipykernel's flush can wait seconds for an output thread that has stopped.)
    """
    import atexit
    import os

    atexit.register(os._exit, 0)


def _private_module(name, **replace):
    """A fresh copy of module ``name`` that no notebook code can reach (it is in no ``sys.modules``), its
    globals updated with ``replace``: what the guard judges paths and signs its log with stays its own."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.__dict__.update(replace)
    return module


def _copy_of(module):
    """A module object holding the same attributes: rebinding the original's afterwards leaves it alone."""
    import types

    twin = types.ModuleType(module.__name__)
    twin.__dict__.update(module.__dict__)
    return twin


def _forget_environment_value(name):
    """Overwrite the value of environment variable ``name`` where the process received it, then remove it.

    ``os.environ.pop`` alone leaves the original string in the memory ``/proc/self/environ`` shows (the
    kernel can read its own, sandbox or not): the log's key would be one read away.
    """
    import ctypes
    import os

    value = os.environ.get(name)
    if value is None:
        return ""
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_void_p
    where = libc.getenv(name.encode())
    if where:
        ctypes.memset(where, ord("0"), len(os.fsencode(value)))
    os.environ.pop(name, None)
    return value


def _bound_builtins(*names):
    """The built-ins ``names``, taken from the ``builtins`` module while the guard installs: a factory keeps them
    as its closures' own, so a notebook that replaces ``builtins.isinstance`` or names a variable ``type`` changes
    nothing the guard does."""
    import builtins

    return tuple(map(vars(builtins).__getitem__, names))


def _preload(names):
    """Import every module the tests import (the snapshot then holds them), before student code; one that is not
    installed (numpy, say) is skipped."""
    import importlib

    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            pass


# ---- paths, the log, where code comes from ------------------------------------------------------------------
def _make_path_tools(ospath):
    """``under(path, roots)``; ``resolve(path)``: the real path of what a call names (str, bytes or path-like,
    relative to the working folder; None for a descriptor); ``secret(path)``: that real path when it is the
    process's own environment, memory or descriptor list (else None). Judged with ``ospath``, the guard's
    private ``posixpath``, and ``os``'s functions as they are now."""
    import os
    import sys

    (isinstance, any, int, bytes, TypeError) = _bound_builtins("isinstance", "any", "int", "bytes", "TypeError")
    getcwd, fspath = os.getcwd, os.fspath
    fs_encoding, fs_errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()

    def under(path, roots):
        return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)

    def fsdecode(path):
        path = fspath(path)
        return path.decode(fs_encoding, fs_errors) if isinstance(path, bytes) else path

    def resolve(path):
        if isinstance(path, int) or path is None:
            return None
        try:
            path = fsdecode(path)
        except TypeError:
            return None
        return ospath.realpath(ospath.join(getcwd(), path))

    def secret(path):
        real = resolve(path)
        if real is not None and real.startswith("/proc/") and (real.rsplit("/", 1)[-1] in ("environ", "mem")
                                                                or "/fd/" in real):
            return real
        return None

    return under, resolve, secret


def _make_log(fd, key, state):
    """``log(kind, **data)``: one line in the log (descriptor ``fd``), numbered by ``state["seq"]`` and signed
    with ``key``; ``record(kind, what, severe)``: a finding, kept in ``state["events"]`` and logged. Signed with
    private copies of ``hmac`` and json's encoder: a notebook that replaces ``hmac.new`` or ``json.dumps`` is
    handed neither the key nor a line to forge."""
    import hashlib
    import os

    (bool, repr) = _bound_builtins("bool", "repr")
    signer = _private_module("hmac")
    encode = _private_module("json.encoder").JSONEncoder(sort_keys=True, default=repr).encode
    sha256, write = hashlib.sha256, os.write

    def log(kind, **data):
        data.update(seq=state["seq"], kind=kind)
        line = encode(data)
        mac = signer.new(key, line.encode(), sha256).hexdigest()
        write(fd, (mac + " " + line + "\n").encode())
        state["seq"] += 1

    def record(kind, what, severe):
        phase = state["phase"]
        entry = {"what": what, "during": phase, "severe": bool(severe or phase)}
        state["events"].append(entry)
        log("event", category=kind, **entry)

    return log, record


def _make_cell_hash():
    """``cell_hash(text)``: a cell's identity, as ``guard_cells.source_hash`` computes it on the grader's side."""
    import hashlib

    def cell_hash(text):
        return hashlib.sha256("\n".join(line.rstrip() for line in text.strip().splitlines()).encode()).hexdigest()

    return cell_hash


def _library_roots(config, ospath):
    """The real folders of installed code, and of the standard library alone.

    Installed code is what this interpreter imports from the folders on its ``sys.path`` as the guard installs
    (before any student code): the interpreter's prefixes, the standard library, the site folders of a venv and
    of any prefix it reaches (``--system-site-packages``, a ``.pth`` file's ``site.addsitedir``, a user site,
    conda, a cluster module), and ``config["library_roots"]`` (the course's helpers). Never a folder a notebook can
    write to, nor one holding such a folder: the notebook's own folder, the kernel's HOME and TMPDIR, the run's
    writable folders (``config["cwd"]``, ``config["write_roots"]``) and ``GRADER_KERNEL_DIR``; an entry in or
    above one of them (``''``, the working folder, ``/tmp``) is left out, so nothing a student writes there
    counts as library code. Folders, not package names: a student's ``torch.py`` is the student's."""
    import os
    import sys
    import sysconfig

    (any, list, sorted, isinstance, str) = _bound_builtins("any", "list", "sorted", "isinstance", "str")
    stdlib = sysconfig.get_paths()["stdlib"]
    writable = [os.getcwd(), os.environ.get("HOME", ""), os.environ.get("TMPDIR", ""),
                os.environ.get("GRADER_KERNEL_DIR", ""), config.get("cwd") or "", *config.get("write_roots", [])]
    writable = {ospath.realpath(w) for w in writable if w}

    def near_writable(root):
        return any(root == w or w.startswith(root.rstrip("/") + "/") or root.startswith(w.rstrip("/") + "/")
                   for w in writable)

    # the interpreter's own folders and the grader's named ones, as before; sys.path's, unless near a writable one
    fixed = {ospath.realpath(p) for p in (sys.prefix, sys.base_prefix, stdlib, *config["library_roots"]) if p}
    found = {ospath.realpath(p) for p in list(sys.path) if isinstance(p, str) and p and ospath.isabs(p)}
    found = {r for r in found - {"/"} if not near_writable(r)}
    return sorted(fixed | found), sorted({ospath.realpath(stdlib)})


def _make_origins(config, roots, ospath, under, cell_hash, origin_cache):
    """``origin(filename)``: whose code a file holds, 'guard', 'trusted' (tests and course cells, known by their
    hash), 'library' or 'student' (kept in ``origin_cache``); ``caller(frame, skip_stdlib)``: ``(origin, file,
    line)`` of the nearest frame that is not the standard library (or IPython). ``roots``: :func:`_library_roots`."""
    import linecache
    import os

    (set,) = _bound_builtins("set")
    trusted_cells = set(config["trusted_sources"])
    lib_roots, stdlib_roots = roots

    def origin(filename):
        if filename in origin_cache:
            return origin_cache[filename]
        if filename == "<grader-guard>":
            kind = "guard"
        elif filename.startswith("<") or not ospath.isabs(filename):
            kind = "student"  # exec, eval, compile of a string
        elif ospath.exists(filename) and under(ospath.realpath(filename), lib_roots):
            kind = "library"
        else:
            lines = linecache.getlines(filename)
            kind = "trusted" if lines and cell_hash("".join(lines)) in trusted_cells else "student"
        origin_cache[filename] = kind
        return kind

    def caller(frame, skip_stdlib):
        while frame is not None:
            fn = frame.f_code.co_filename
            real = ospath.realpath(fn) if ospath.isabs(fn) else fn
            if skip_stdlib and ospath.isabs(fn) and (
                    under(real, stdlib_roots) and "site-packages" not in real
                    or f"{os.sep}IPython{os.sep}" in real or f"{os.sep}ipykernel{os.sep}" in real):
                frame = frame.f_back
                continue
            return origin(fn), fn, frame.f_lineno
        return "library", "", 0

    return origin, caller


# ---- the audit hook -----------------------------------------------------------------------------------------
def _make_audit_hook(state, protected_ids, secret, caller, record):
    """The audit hook (no Python code can remove it): refuses opening the process's own environment, memory or
    descriptors (``secret``); records a trace or profile function, a ``gc`` search, a ``ctypes`` call or a
    monitoring callback from student code, and student code changing a protected object (``protected_ids``).
    Silent while the guard's own code runs (``state["busy"]``) and inside itself."""
    import os
    import sys

    (isinstance, int, id, getattr, PermissionError) = _bound_builtins("isinstance", "int", "id", "getattr",
                                                                       "PermissionError")
    getframe = sys._getframe
    SUSPECT = {"sys.settrace": "installed a trace function (sys.settrace)",
               "sys.setprofile": "installed a profile function (sys.setprofile)",
               "sys.addaudithook": "added an audit hook",
               "gc.get_objects": "searched the interpreter's objects (gc.get_objects)",
               "gc.get_referrers": "searched the interpreter's objects (gc.get_referrers)",
               "gc.get_referents": "searched the interpreter's objects (gc.get_referents)",
               "sys._current_frames": "read other threads' frames",
               "sys.monitoring.register_callback": "installed a monitoring callback"}
    ALWAYS_SEVERE = {"sys.settrace", "sys.setprofile", "sys.addaudithook", "sys.monitoring.register_callback"}
    WRITES = os.O_WRONLY | os.O_RDWR

    def hook(event, args):
        if state["in_hook"] or state["busy"]:
            return
        state["in_hook"] = True
        try:
            if event == "open":
                real = secret(args[0])
                if real is not None:
                    what = "writing" if isinstance(args[2], int) and args[2] & WRITES else "reading"
                    record("file", f"{what} {real} (open)", severe=True)
                    raise PermissionError(f"the autograder does not allow {what} {real}")
            elif event in SUSPECT or event.startswith("ctypes.") and event not in ("ctypes.dlopen", "ctypes.dlsym"):
                kind, fn, line = caller(getframe(1), True)
                if kind == "student":
                    what = SUSPECT.get(event, f"used ctypes ({event})")
                    record("suspect", f"{what} at line {line}", severe=event in ALWAYS_SEVERE
                           or event.startswith("ctypes."))
            elif event in ("object.__setattr__", "object.__delattr__") and id(args[0]) in protected_ids:
                kind, fn, line = caller(getframe(1), True)
                if kind == "student":
                    record("patch", f"changed {getattr(args[0], '__qualname__', args[0])!s}.{args[1]} at line {line}",
                           severe=True)
        finally:
            state["in_hook"] = False

    return hook


# ---- the snapshot -------------------------------------------------------------------------------------------
def _make_attribute_tools():
    """``unwrap(value)``: the function a class attribute holds (through staticmethod, classmethod, property);
    ``safe_callable(value)``: whether it is something tests call (a function, class, module or descriptor)."""
    import types

    (isinstance, callable, staticmethod, classmethod, property, Exception) = _bound_builtins(
        "isinstance", "callable", "staticmethod", "classmethod", "property", "Exception")

    def unwrap(value):
        if isinstance(value, (staticmethod, classmethod)):
            return value.__func__
        if isinstance(value, property):
            return value.fget
        return value

    def safe_callable(v):
        try:
            return callable(v) or isinstance(v, (types.ModuleType, staticmethod, classmethod, property))
        except Exception:
            return False

    return unwrap, safe_callable


def _protected_modules(config):
    """``{name: module}``: the modules loaded now that ``config`` protects (``protected_modules``, and every module
    of the ``protected_prefixes`` packages), and ``builtins``."""
    import builtins
    import sys
    import types

    (isinstance, any, list) = _bound_builtins("isinstance", "any", "list")

    def protected(name):
        return name in config["protected_modules"] or any(name == p or name.startswith(p + ".")
                                                          for p in config["protected_prefixes"])

    modules = {name: mod for name, mod in list(sys.modules.items())
               if isinstance(mod, types.ModuleType) and protected(name)}
    modules["builtins"] = builtins
    return modules


def _take_snapshot(modules, protected_ids, unwrap, safe_callable):
    """The protected ``modules`` (:func:`_protected_modules`), with their functions and classes (and those classes'
    methods and code objects), and ``sys``'s hooks, as they are before any student code: ``{"modules": {name:
    (module, items)}, "classes": {id: (class, items, keys)}, "code": {id: (function, code, defaults, kwdefaults)},
    "sys": {...}, "sysmodules": {name: module}}``. The id of every object snapshotted goes into ``protected_ids``."""
    import builtins
    import sys
    import types

    (isinstance, getattr, id, list, set, vars, object, TypeError) = _bound_builtins(
        "isinstance", "getattr", "id", "list", "set", "vars", "object", "TypeError")
    VOLATILE = {"input", "raw_input", "getpass", "_", "__", "___", "display", "get_ipython", "exit", "quit",
                "copyright", "credits", "license", "help", "__IPYTHON__", "__spec__", "__loader__"}
    snap_modules, snap_classes, snap_code = {}, {}, {}

    def callable_items(ns):
        return {k: v for k, v in list(ns.items()) if safe_callable(v) and k not in VOLATILE}

    def add_class(cls):
        for klass in getattr(cls, "__mro__", (cls,)):
            if klass is object or id(klass) in snap_classes:
                continue
            try:
                snap_classes[id(klass)] = (klass, callable_items(vars(klass)), set(vars(klass)))
            except TypeError:
                continue
            protected_ids.add(id(klass))
            for value in vars(klass).values():
                add_func(value)

    def add_func(value):
        fn = unwrap(value)
        if isinstance(fn, types.FunctionType) and id(fn) not in snap_code:
            snap_code[id(fn)] = (fn, fn.__code__, fn.__defaults__, fn.__kwdefaults__)
            protected_ids.add(id(fn))

    for name, mod in modules.items():
        items = callable_items(vars(mod))
        snap_modules[name] = (mod, items)
        protected_ids.add(id(mod))
        for value in items.values():
            if isinstance(value, type) and (getattr(value, "__module__", "") or "").split(".")[0] in (
                    name.split(".")[0], "builtins", "torch"):
                add_class(value)
            else:
                add_func(value)
    snap_sys = {"stdout": sys.stdout, "stderr": sys.stderr, "displayhook": sys.displayhook,
                "excepthook": sys.excepthook, "__import__": builtins.__import__,
                "meta_path": list(sys.meta_path), "path_hooks": list(sys.path_hooks)}
    return {"modules": snap_modules, "classes": snap_classes, "code": snap_code, "sys": snap_sys,
            "sysmodules": dict(modules)}


def _notebook_namespace(config):
    """``(shell, user_ns, builtin_names, ns_initial)``: IPython's shell (None outside IPython), the notebook's
    namespace, the built-ins a test reads (only those can mislead a test) and what the namespace holds under
    those names before any student code."""
    import builtins

    (callable, set) = _bound_builtins("callable", "set")
    shell = None
    try:
        shell = get_ipython()  # defined in the kernel (ruff knows the name)
    except NameError:
        pass
    user_ns = shell.user_ns if shell is not None else {}
    builtin_names = {k for k, v in vars(builtins).items() if callable(v) and not k.startswith("_")}
    if config.get("test_names") is not None:
        builtin_names &= set(config["test_names"])
    return shell, user_ns, builtin_names, {k: user_ns[k] for k in builtin_names & set(user_ns)}


# ---- what changed since the snapshot: one check per kind of object ------------------------------------------
def _make_diff(state, checks):
    """``diff(restore)``: what changed since the snapshot (as sentences), each check's findings in turn; put back
    if ``restore``. Each check is called with ``changed(what, undo, *args)``, which notes ``what`` and, when
    restoring, calls ``undo(*args)``."""

    def diff(restore):
        changes = []

        def changed(what, undo, *args):
            changes.append(what)
            if restore:
                undo(*args)

        state["busy"] += 1
        try:
            for check in checks:
                check(changed)
        finally:
            state["busy"] -= 1
        return changes

    return diff


def _make_library_checks(origin):
    """``library_wrapper(new, old)``: ``new`` is a library's own wrapper of ``old`` (functools.wraps in a library
    file); ``genuine_library(fn)``: ``fn``'s code really is in a library file (not code compiled under a borrowed
    name)."""
    import linecache
    import types

    (isinstance, getattr, range) = _bound_builtins("isinstance", "getattr", "range")

    def library_wrapper(new, old):
        if getattr(new, "__wrapped__", None) is not old:
            return False
        code = getattr(new, "__code__", None)
        return code is not None and origin(code.co_filename) == "library"

    def genuine_library(fn):
        code = getattr(fn, "__code__", None)
        if not isinstance(fn, types.FunctionType) or code is None or origin(code.co_filename) != "library":
            return False
        lines = "".join(linecache.getline(code.co_filename, code.co_firstlineno + i) for i in range(12))
        return ("def " + code.co_name) in lines or (code.co_name == "<lambda>" and "lambda" in lines)

    return library_wrapper, genuine_library


def _make_trace_check():
    """A trace or profile function active (the one the kernel started with is not)."""
    import sys
    import threading

    trace_was = sys.gettrace()

    def remove():
        sys.settrace(trace_was)
        sys.setprofile(None)
        threading.settrace(None)
        threading.setprofile(None)

    def check(changed):
        if sys.gettrace() is not trace_was or sys.getprofile() is not None:
            changed("a trace or profile function was active", remove)

    return check


def _make_sys_modules_check(snapshot):
    """A module in ``sys.modules`` replaced."""
    import sys

    def put_back(name, mod):
        sys.modules[name] = mod

    def check(changed):
        for name, mod in snapshot["sysmodules"].items():
            if sys.modules.get(name) is not mod and name != "builtins":
                changed(f"sys.modules[{name!r}] was replaced", put_back, name, mod)

    return check


def _make_module_check(snapshot, library_wrapper):
    """A protected module's function or class replaced (a library's own wrapper of it becomes the snapshot)."""
    (vars, setattr) = _bound_builtins("vars", "setattr")

    def check(changed):
        for name, (mod, items) in snapshot["modules"].items():
            current = vars(mod)
            for k, v in items.items():
                new = current.get(k, None)
                if new is v:
                    continue
                if library_wrapper(new, v):
                    items[k] = new  # e.g. torch._dynamo wraps torch.manual_seed when imported
                else:
                    changed(f"{name}.{k} was replaced", setattr, mod, k, v)

    return check


def _make_quiet(action):
    """``action`` (``setattr``, ``delattr``), leaving alone a class that refuses it (a built-in type)."""
    (TypeError, AttributeError) = _bound_builtins("TypeError", "AttributeError")

    def quiet(*args):
        try:
            action(*args)
        except (TypeError, AttributeError):
            pass

    return quiet


def _make_class_replaced(library_wrapper, genuine_library):
    """``replaced(changed, klass, items, current)``: a protected class's method replaced. torch.optim wraps
    Optimizer.step for its profiler, torch._dynamo patches Module.__init__: a library's own change becomes the
    snapshot (a student's own change to a class is seen by the audit hook)."""
    put_back = _make_quiet(*_bound_builtins("setattr"))
    SKIP = ("__dict__", "__weakref__", "__doc__", "__abstractmethods__", "_abc_impl")

    def replaced(changed, klass, items, current):
        for k, v in items.items():
            new = current.get(k, None)
            if k in SKIP or new is v:
                continue
            if library_wrapper(new, v) or genuine_library(new):
                items[k] = new
            else:
                changed(f"{klass.__module__}.{klass.__qualname__}.{k} was replaced", put_back, klass, k, v)

    return replaced


def _make_class_added(library_wrapper, genuine_library, safe_callable):
    """``added(changed, klass, items, keys, current)``: a method added to a protected class over an inherited one
    (data, and a library's own wrapper, join the snapshot)."""
    (vars, set, next) = _bound_builtins("vars", "set", "next")
    remove = _make_quiet(*_bound_builtins("delattr"))

    def added(changed, klass, items, keys, current):
        for k in set(current) - keys:
            inherited = next((vars(b)[k] for b in klass.__mro__[1:] if k in vars(b)), None)
            if not safe_callable(current[k]):
                keys.add(k)  # data (a lazily made __annotations__, a flag): not what tests call
            elif inherited is not None and (library_wrapper(current[k], inherited)
                                            or genuine_library(current[k])):
                keys.add(k)  # torch.optim wraps an inherited step() on the subclass it profiles
                items[k] = current[k]
            elif not k.startswith("_abc") and inherited is not None:
                changed(f"{klass.__module__}.{klass.__qualname__}.{k} was added", remove, klass, k)

    return added


def _make_class_check(snapshot, replaced, added):
    """Each protected class in turn: a method replaced (``replaced``: :func:`_make_class_replaced`), then one added
    (``added``: :func:`_make_class_added`)."""
    (vars,) = _bound_builtins("vars")

    def check(changed):
        for klass, items, keys in snapshot["classes"].values():
            current = vars(klass)
            replaced(changed, klass, items, current)
            added(changed, klass, items, keys, current)

    return check


def _make_code_check(snapshot):
    """A protected function's code, defaults or keyword defaults replaced."""

    def put_back(fn, code, defaults, kwdefaults):
        fn.__code__, fn.__defaults__, fn.__kwdefaults__ = code, defaults, kwdefaults

    def check(changed):
        for fn, code, defaults, kwdefaults in snapshot["code"].values():
            if fn.__code__ is not code or fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
                changed(f"the code of {fn.__module__}.{fn.__qualname__} was replaced", put_back, fn, code, defaults,
                        kwdefaults)

    return check


def _make_import_check(snapshot, streams):
    """``sys.stdout``, ``sys.stderr`` (the guard's capped ones, ``streams``) or ``sys.displayhook`` replaced;
    ``builtins.__import__`` replaced; the import system (``sys.meta_path``, ``sys.path_hooks``) changed."""
    import builtins
    import sys

    (getattr, setattr) = _bound_builtins("getattr", "setattr")
    snap_sys = snapshot["sys"]

    def put_back_import():
        builtins.__import__ = snap_sys["__import__"]

    def put_back_import_system():
        sys.meta_path[:] = snap_sys["meta_path"]
        sys.path_hooks[:] = snap_sys["path_hooks"]

    def check(changed):
        for k in ("stdout", "stderr", "displayhook"):
            if getattr(sys, k) is not streams.get(k, snap_sys[k]):
                changed(f"sys.{k} was replaced", setattr, sys, k, streams.get(k, snap_sys[k]))
        if builtins.__import__ is not snap_sys["__import__"]:
            changed("builtins.__import__ was replaced", put_back_import)
        if sys.meta_path != snap_sys["meta_path"] or sys.path_hooks != snap_sys["path_hooks"]:
            changed("the import system (sys.meta_path / sys.path_hooks) was changed", put_back_import_system)

    return check


def _make_shell_check(shell, user_ns):
    """IPython's ``showtraceback`` replaced on the ``shell``, or the notebook's ``__builtins__`` replaced."""
    import builtins

    (vars,) = _bound_builtins("vars")

    def remove_showtraceback():
        del shell.showtraceback

    def put_back_builtins():
        user_ns["__builtins__"] = builtins

    def check(changed):
        if shell is None:
            return
        if "showtraceback" in vars(shell):
            changed("IPython's showtraceback was replaced", remove_showtraceback)
        if user_ns.get("__builtins__", builtins) not in (builtins, vars(builtins)):
            changed("__builtins__ was replaced", put_back_builtins)

    return check


def _make_names_check(config, snapshot, notebook):
    """In the notebook (``notebook``: :func:`_notebook_namespace`): a test's module name
    (``config["namespace_modules"]``) rebound, or a built-in a test reads redefined (a graded function's own name
    excepted)."""
    import builtins

    (vars, set) = _bound_builtins("vars", "set")
    shell, user_ns, builtin_names, ns_initial = notebook

    def put_back(k, value):
        user_ns[k] = value

    def put_back_builtin(k):
        if k in ns_initial:
            user_ns[k] = ns_initial[k]
        else:
            del user_ns[k]

    def check(changed):
        if shell is None:
            return
        for k in config["namespace_modules"]:
            mod = snapshot["sysmodules"].get(config["namespace_modules"][k])
            if k in user_ns and mod is not None and user_ns[k] is not mod:
                changed(f"the name {k!r} no longer means the {mod.__name__} module", put_back, k, mod)
        for k in builtin_names & set(user_ns):
            if user_ns[k] is not ns_initial.get(k, vars(builtins).get(k)) and k not in config["graded"]:
                changed(f"the built-in {k!r} was redefined", put_back_builtin, k)

    return check


# ---- graded functions: what they return ---------------------------------------------------------------------
def _make_class_problem(origin, ospath, under, lib_roots, unwrap):
    """``class_problem(cls)``: a sentence when ``cls`` (or a class it inherits from, or its metaclass) was written
    in the notebook and defines its own comparison, arithmetic, ``__class__``... (an ``__eq__`` that is always
    True); None otherwise. Built-in types, classes of library files (``lib_roots``), methods of ``origin``'s
    'trusted' cells and dataclasses' generated methods are no finding."""
    import sys
    import types

    (isinstance, getattr, set, type, vars) = _bound_builtins("isinstance", "getattr", "set", "type", "vars")
    SUSPICIOUS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__abs__", "__sub__",
                  "__rsub__", "__add__", "__radd__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                  "__float__", "__int__", "__index__", "__round__", "__neg__", "__pos__", "__instancecheck__",
                  "__subclasscheck__", "__getattr__", "__getattribute__", "__class__", "__torch_function__",
                  "__torch_dispatch__", "__array__", "__array_ufunc__"}
    HEAPTYPE = 1 << 9

    def class_problem(cls):
        for klass in (*getattr(cls, "__mro__", ()), type(cls)):
            if not (getattr(klass, "__flags__", 0) & HEAPTYPE):
                continue  # a built-in (C) type: int, tuple, dict, torch.device...
            mod = sys.modules.get(getattr(klass, "__module__", "") or "")
            file = getattr(mod, "__file__", None) or ""
            if file and under(ospath.realpath(file), lib_roots):
                continue
            generated = "__dataclass_fields__" in vars(klass)
            for name in SUSPICIOUS & set(vars(klass)):
                fn = unwrap(vars(klass)[name])
                code = fn.__code__ if isinstance(fn, types.FunctionType) else None
                if code is not None and (origin(code.co_filename) == "trusted"
                                         or generated and code.co_filename == "<string>"):
                    continue
                return f"an object of class {klass.__qualname__} that defines its own {name}"
        return None

    return class_problem


def _make_return_inspector(class_problem):
    """``inspect_value(value)``: ``class_problem`` (:func:`_make_class_problem`) of ``value``'s class, or of an
    item of a dict, list, tuple or set in it (at most 6 levels deep, 5000 values)."""
    (isinstance, list, type, dict, tuple, set, frozenset) = _bound_builtins(
        "isinstance", "list", "type", "dict", "tuple", "set", "frozenset")
    SAFE = _bound_builtins("int", "float", "bool", "str", "bytes", "complex") + (type(None),)

    def inspect_value(value, depth=0, budget=None):
        budget = budget if budget is not None else [5000]
        budget[0] -= 1
        if budget[0] < 0 or depth > 6:
            return None
        cls = type(value)
        if cls in SAFE:
            return None
        problem = class_problem(cls)
        if problem:
            return problem
        if isinstance(value, dict):
            items = list(value.keys()) + list(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = list(value)
        else:
            return None
        for item in items:
            problem = inspect_value(item, depth + 1, budget)
            if problem:
                return problem
        return None

    return inspect_value


def _make_wrapper(state, inspect_value, record):
    """``wrap(fn, name)``: graded function ``fn``, wrapped so that what it returns goes through ``inspect_value``
    (a finding is recorded as ``name`` returning it)."""
    import functools

    wraps = functools.wraps

    def wrap(fn, name):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            result = fn(*args, **kwargs)
            state["busy"] += 1
            try:
                problem = inspect_value(result)
            finally:
                state["busy"] -= 1
            if problem:
                record("return", f"{name} returned {problem}", severe=True)
            return result

        wrapper._grader_wrapped = True
        return wrapper

    return wrap


def _make_graded_wrappers(config, user_ns, wrap):
    """``wrap_graded()``: while a test runs, each graded function (``config["graded"]``) in the notebook is wrapped
    (``wrap``: :func:`_make_wrapper`); ``unwrap_graded()`` puts the student's functions back; ``poison()``: for a
    test whose call killed the kernel in an earlier run, each graded function just fails."""
    (callable, getattr, RuntimeError) = _bound_builtins("callable", "getattr", "RuntimeError")
    originals = {}

    def wrap_graded():
        for name in config["graded"]:
            fn = user_ns.get(name)
            if not callable(fn) or getattr(fn, "_grader_wrapped", False):
                continue
            originals[name] = fn
            user_ns[name] = wrap(fn, name)

    def unwrap_graded():
        for name, fn in originals.items():
            if getattr(user_ns.get(name), "_grader_wrapped", False):
                user_ns[name] = fn
        originals.clear()

    def poison():
        for name in config["graded"]:
            if callable(user_ns.get(name)):
                originals.setdefault(name, user_ns[name])

                def stub(*_a, _name=name, **_k):
                    raise RuntimeError(f"{_name} stopped the kernel (or ran out of time) when this notebook "
                                       "was graded, so this test was not run again")

                stub._grader_wrapped = True
                user_ns[name] = stub

    return wrap_graded, unwrap_graded, poison


# ---- output cap, cells, checkpoints -------------------------------------------------------------------------
def _make_output_cap(config, state):
    """``capped(stream)``: ``stream`` that prints at most ``config["max_output_chars"]`` characters per cell
    (``state["printed"]``), then says once that the rest was cut."""
    (len, getattr) = _bound_builtins("len", "getattr")

    class Capped:
        def __init__(self, inner):
            self._inner = inner

        def write(self, text):
            if state["printed"] > config["max_output_chars"]:
                if not state["truncated"]:
                    state["truncated"] = True
                    self._inner.write(f"\n... output cut by the autograder after {config['max_output_chars']} "
                                      "characters in this cell ...\n")
                return len(text)
            state["printed"] += len(text)
            return self._inner.write(text)

        def __getattr__(self, name):
            return getattr(self._inner, name)

    return Capped


def _make_on_cell(state, log, cell_hash):
    """IPython's ``pre_run_cell`` callback: a new cell may print again, and the log names the cell (by its hash)
    and the test running, so the grader knows the last cell a kernel started."""
    (getattr,) = _bound_builtins("getattr")

    def on_cell(info=None, *_args):
        state["printed"] = 0
        state["truncated"] = False
        raw = getattr(info, "raw_cell", None) or ""
        log("cell", hash=cell_hash(raw), test=state["phase"])

    return on_cell


def _make_checkpoints(config, state, log, diff, graded):
    """The object the checkpoint cells call: ``before(test)`` puts back every change (``diff``) and wraps the
    graded functions (``graded``: :func:`_make_graded_wrappers`), or poisons them for a test in
    ``config["poisoned"]``; ``after(test)`` unwraps them and reports what changed and what happened while the test
    ran. A failure is logged and raised (the grader then finds the checkpoint broken)."""
    import time

    (type, round, BaseException) = _bound_builtins("type", "round", "BaseException")
    wrap_graded, unwrap_graded, poison = graded

    class Guard:
        __slots__ = ()

        def before(self, test):
            t0 = time.perf_counter()
            try:
                restored = diff(restore=True)
                if test in config.get("poisoned", ()):
                    poison()
                else:
                    wrap_graded()
                state["events"].clear()
                log("before", test=test, restored=restored, seconds=round(time.perf_counter() - t0, 3))
                state["phase"] = test
            except BaseException as error:
                log("error", test=test, where="before", error=f"{type(error).__name__}: {error}")
                raise

        def after(self, test):
            try:
                state["phase"] = None
                unwrap_graded()
                changes = diff(restore=True)
                events = [e for e in state["events"] if e["during"] == test]
                log("after", test=test, changes=changes, events=events)
            except BaseException as error:
                log("error", test=test, where="after", error=f"{type(error).__name__}: {error}")
                raise

    return Guard()


def _grader_guard_install(config, os_rules=None):
    """Install the guard and return its checkpoints; ``os_rules`` (``guard_os._grader_guard_os_rules``): the file,
    program and signal rules of a kernel that runs without the OS sandbox, or None."""
    import os
    import stat
    import sys
    import time

    # Paths are judged with a private posixpath over copies of os and stat, made before any student code runs: a
    # notebook that replaces anything os.path uses (its functions' code, posixpath's or os's attributes) changes
    # nothing here, not even for the length of one cell (test_guard_unit.py, "bypasses").
    ospath = _private_module("posixpath", os=_copy_of(os), stat=_copy_of(stat))
    started = time.perf_counter()
    _register_quick_exit()
    key = _forget_environment_value("GRADER_GUARD_KEY").encode()
    fd = os.open(os.environ.pop("GRADER_GUARD_LOG", ""), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    state = {"seq": 0, "phase": None, "busy": 0, "in_hook": False, "events": [], "printed": 0,
             "truncated": False}
    log, record = _make_log(fd, key, state)
    _preload(config["preload"])

    under, resolve, secret = _make_path_tools(ospath)
    cell_hash, origin_cache, roots = _make_cell_hash(), {}, _library_roots(config, ospath)
    origin, caller = _make_origins(config, roots, ospath, under, cell_hash, origin_cache)
    protected_ids = set()
    hook = _make_audit_hook(state, protected_ids, secret, caller, record)

    unwrap, safe_callable = _make_attribute_tools()
    snapshot = _take_snapshot(_protected_modules(config), protected_ids, unwrap, safe_callable)
    notebook = _notebook_namespace(config)
    shell, user_ns = notebook[:2]
    library_wrapper, genuine_library = _make_library_checks(origin)
    streams = {}
    diff = _make_diff(state, [_make_trace_check(), _make_sys_modules_check(snapshot),
                              _make_module_check(snapshot, library_wrapper),
                              _make_class_check(snapshot, _make_class_replaced(library_wrapper, genuine_library),
                                                _make_class_added(library_wrapper, genuine_library, safe_callable)),
                              _make_code_check(snapshot), _make_import_check(snapshot, streams),
                              _make_shell_check(shell, user_ns), _make_names_check(config, snapshot, notebook)])
    inspect_value = _make_return_inspector(_make_class_problem(origin, ospath, under, roots[0], unwrap))
    graded = _make_graded_wrappers(config, user_ns, _make_wrapper(state, inspect_value, record))

    capped = _make_output_cap(config, state)
    for k in ("stdout", "stderr"):
        streams[k] = capped(getattr(sys, k))
        setattr(sys, k, streams[k])
    if shell is not None:
        shell.events.register("pre_run_cell", _make_on_cell(state, log, cell_hash))
    origin_cache[sys._getframe(1).f_code.co_filename] = "guard"  # the cell that installs the guard
    if os_rules is not None:  # no OS sandbox around this kernel: the guard refuses what it would have
        os_rules(config, record, caller, lambda: state["in_hook"] or state["busy"], resolve, under)
    sys.addaudithook(hook)
    log("install", seconds=round(time.perf_counter() - started, 3), modules=len(snapshot["modules"]),
        classes=len(snapshot["classes"]), functions=len(snapshot["code"]))
    return _make_checkpoints(config, state, log, diff, graded)

