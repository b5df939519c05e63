"""The integrity guard that runs *inside* the grading kernel (see docs/grading.md, "Tampering").

``graders.grading.tamper.guard_sources`` pastes this file's source into a cell it puts first in every graded
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


def _grader_guard_install(config, os_rules=None):  # noqa: C901  (one closure keeps the state out of reach)
    """The guard's checkpoints; ``os_rules`` (``guard_os._grader_guard_os_rules``): the file, program and
    signal rules of a kernel that runs without the OS sandbox, or None."""
    import builtins
    import hashlib
    import importlib
    import linecache
    import os
    import sys
    import sysconfig
    import threading
    import time
    import types

    # The guard's own references to what it calls, bound before any student code runs: a notebook that
    # replaces a built-in, or anything os.path uses (its functions' code, posixpath's or os's attributes),
    # changes nothing here, not even for the length of one cell (tests/test_guard_unit.py, "bypasses").
    (isinstance, any, bool, int, str, len, getattr, id, repr, sorted, set, dict, list, tuple, callable, range) = (
        builtins.isinstance, builtins.any, builtins.bool, builtins.int, builtins.str, builtins.len,
        builtins.getattr, builtins.id, builtins.repr, builtins.sorted, builtins.set, builtins.dict,
        builtins.list, builtins.tuple, builtins.callable, builtins.range)
    import stat
    ospath = _private_module("posixpath", os=_copy_of(os), stat=_copy_of(stat))
    signer = _private_module("hmac")
    encode = _private_module("json.encoder").JSONEncoder(sort_keys=True, default=repr).encode
    sha256, write = hashlib.sha256, os.write
    getcwd, fspath, getframe = os.getcwd, os.fspath, sys._getframe
    fs_encoding, fs_errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()

    def fsdecode(path):
        path = fspath(path)
        return path.decode(fs_encoding, fs_errors) if isinstance(path, bytes) else path

    started = time.perf_counter()
    _register_quick_exit()
    key = _forget_environment_value("GRADER_GUARD_KEY").encode()
    log_path = os.environ.pop("GRADER_GUARD_LOG", "")
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    state = {"seq": 0, "phase": None, "busy": 0, "in_hook": False, "events": [], "returns": [],
             "printed": 0, "truncated": False}

    def log(kind, **data):
        data.update(seq=state["seq"], kind=kind)
        line = encode(data)
        mac = signer.new(key, line.encode(), sha256).hexdigest()
        write(fd, (mac + " " + line + "\n").encode())
        state["seq"] += 1

    for name in config["preload"]:  # everything the tests import, loaded before student code
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001  (an optional module, e.g. numpy)
            pass

    # ---- where code comes from ---------------------------------------------------------------
    def norm(text):
        return "\n".join(line.rstrip() for line in text.strip().splitlines())

    trusted_cells = set(config["trusted_sources"])
    lib_roots = sorted({ospath.realpath(p) for p in (sys.prefix, sys.base_prefix, sysconfig.get_paths()["stdlib"],
                                                      *config["library_roots"]) if p})
    stdlib_roots = sorted({ospath.realpath(p) for p in (sysconfig.get_paths()["stdlib"],)})
    origin_cache = {}

    def under(path, roots):
        return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)

    def origin(filename):
        """'guard', 'trusted' (tests and course cells), 'library', or 'student'."""
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
            text = norm("".join(lines))
            if not lines:
                kind = "student"
            elif hashlib.sha256(text.encode()).hexdigest() in trusted_cells:
                kind = "trusted"
            else:
                kind = "student"
        origin_cache[filename] = kind
        return kind

    def caller(frame, skip_stdlib):
        """The origin of the nearest frame that is not the standard library (or IPython)."""
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

    # ---- the guard's own secrets: its key (the environment), its state (memory), its log (descriptors) -----
    def resolve(path):
        """The real path of ``path`` (str, bytes or path-like, relative to the working folder); None for an fd."""
        if isinstance(path, int) or path is None:
            return None
        try:
            path = fsdecode(path)
        except TypeError:
            return None
        return ospath.realpath(ospath.join(getcwd(), path))

    def secret(path):
        """The real path of ``path`` when it is the process's own environment, memory or descriptor list."""
        real = resolve(path)
        if real is not None and real.startswith("/proc/") and (real.rsplit("/", 1)[-1] in ("environ", "mem")
                                                                or "/fd/" in real):
            return real
        return None

    # ---- recording ---------------------------------------------------------------------------
    def record(kind, what, severe):
        phase = state["phase"]
        entry = {"what": what, "during": phase, "severe": bool(severe or phase)}
        state["events"].append(entry)
        log("event", category=kind, **entry)

    protected_ids = set()
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
            elif event in ("object.__setattr__", "object.__delattr__"):
                obj = args[0]
                if id(obj) in protected_ids:
                    kind, fn, line = caller(getframe(1), True)
                    if kind == "student":
                        record("patch", f"changed {getattr(obj, '__qualname__', obj)!s}.{args[1]} at line {line}",
                               severe=True)
        finally:
            state["in_hook"] = False

    # ---- snapshot ----------------------------------------------------------------------------
    def is_protected_module(name):
        return name in config["protected_modules"] or any(name == p or name.startswith(p + ".")
                                                          for p in config["protected_prefixes"])

    modules = {name: mod for name, mod in list(sys.modules.items())
               if isinstance(mod, types.ModuleType) and is_protected_module(name)}
    modules["builtins"] = builtins
    VOLATILE = {"input", "raw_input", "getpass", "_", "__", "___", "display", "get_ipython", "exit", "quit",
                "copyright", "credits", "license", "help", "__IPYTHON__", "__spec__", "__loader__"}

    def safe_callable(v):
        try:
            return callable(v) or isinstance(v, (types.ModuleType, staticmethod, classmethod, property))
        except Exception:  # noqa: BLE001
            return False

    def callable_items(ns):
        return {k: v for k, v in list(ns.items()) if safe_callable(v) and k not in VOLATILE}

    snap_modules = {}
    snap_classes = {}
    snap_code = {}

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

    def unwrap(value):
        if isinstance(value, (staticmethod, classmethod)):
            return value.__func__
        if isinstance(value, property):
            return value.fget
        return value

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
    snap_sysmodules = dict(modules)
    shell = None
    try:
        shell = get_ipython()  # noqa: F821  (defined in the kernel)
    except NameError:
        pass
    user_ns = shell.user_ns if shell is not None else {}
    builtin_names = {k for k, v in vars(builtins).items() if callable(v) and not k.startswith("_")}
    if config.get("test_names") is not None:  # only the built-ins a test reads can mislead a test
        builtin_names &= set(config["test_names"])
    ns_initial = {k: user_ns[k] for k in builtin_names & set(user_ns)}
    trace_was = sys.gettrace()

    def library_wrapper(new, old):
        """True for a library's own wrapper of the original (functools.wraps in a library file)."""
        if getattr(new, "__wrapped__", None) is not old:
            return False
        code = getattr(new, "__code__", None)
        return code is not None and origin(code.co_filename) == "library"

    def genuine_library(fn):
        """A function whose code really is in a library file (not code compiled under a borrowed name)."""
        code = getattr(fn, "__code__", None)
        if not isinstance(fn, types.FunctionType) or code is None or origin(code.co_filename) != "library":
            return False
        lines = "".join(linecache.getline(code.co_filename, code.co_firstlineno + i) for i in range(12))
        return ("def " + code.co_name) in lines or (code.co_name == "<lambda>" and "lambda" in lines)

    def diff(restore):
        """What changed since the snapshot (as sentences); put it back if ``restore``."""
        changes = []
        state["busy"] += 1
        try:
            if sys.gettrace() is not trace_was or sys.getprofile() is not None:
                changes.append("a trace or profile function was active")
                if restore:
                    sys.settrace(trace_was)
                    sys.setprofile(None)
                    threading.settrace(None)
                    threading.setprofile(None)
            for name, mod in snap_sysmodules.items():
                if sys.modules.get(name) is not mod and name != "builtins":
                    changes.append(f"sys.modules[{name!r}] was replaced")
                    if restore:
                        sys.modules[name] = mod
            for name, (mod, items) in snap_modules.items():
                current = vars(mod)
                for k, v in items.items():
                    if current.get(k, None) is not v and library_wrapper(current.get(k), v):
                        items[k] = current[k]  # e.g. torch._dynamo wraps torch.manual_seed when imported
                    elif current.get(k, None) is not v:
                        changes.append(f"{name}.{k} was replaced")
                        if restore:
                            setattr(mod, k, v)
            for klass, items, keys in snap_classes.values():
                current = vars(klass)
                for k, v in items.items():
                    if k in ("__dict__", "__weakref__", "__doc__", "__abstractmethods__", "_abc_impl"):
                        continue
                    if current.get(k, None) is not v and (library_wrapper(current.get(k), v)
                                                          or genuine_library(current.get(k))):
                        # torch.optim wraps Optimizer.step for its profiler, torch._dynamo patches
                        # Module.__init__; a student's own change to a class is seen by the audit hook.
                        items[k] = current[k]
                    elif current.get(k, None) is not v:
                        changes.append(f"{klass.__module__}.{klass.__qualname__}.{k} was replaced")
                        if restore:
                            try:
                                setattr(klass, k, v)
                            except (TypeError, AttributeError):
                                pass
                for k in set(current) - keys:
                    inherited = next((vars(b)[k] for b in klass.__mro__[1:] if k in vars(b)), None)
                    if not safe_callable(current[k]):
                        keys.add(k)  # data (a lazily made __annotations__, a flag): not what tests call
                    elif inherited is not None and (library_wrapper(current[k], inherited)
                                                    or genuine_library(current[k])):
                        keys.add(k)  # torch.optim wraps an inherited step() on the subclass it profiles
                        items[k] = current[k]
                    elif not k.startswith("_abc") and inherited is not None:
                        changes.append(f"{klass.__module__}.{klass.__qualname__}.{k} was added")
                        if restore:
                            try:
                                delattr(klass, k)
                            except (TypeError, AttributeError):
                                pass
            for fn, code, defaults, kwdefaults in snap_code.values():
                if fn.__code__ is not code or fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
                    changes.append(f"the code of {fn.__module__}.{fn.__qualname__} was replaced")
                    if restore:
                        fn.__code__, fn.__defaults__, fn.__kwdefaults__ = code, defaults, kwdefaults
            for k in ("stdout", "stderr", "displayhook"):
                if getattr(sys, k) is not streams.get(k, snap_sys[k]):
                    changes.append(f"sys.{k} was replaced")
                    if restore:
                        setattr(sys, k, streams.get(k, snap_sys[k]))
            if builtins.__import__ is not snap_sys["__import__"]:
                changes.append("builtins.__import__ was replaced")
                if restore:
                    builtins.__import__ = snap_sys["__import__"]
            if sys.meta_path != snap_sys["meta_path"] or sys.path_hooks != snap_sys["path_hooks"]:
                changes.append("the import system (sys.meta_path / sys.path_hooks) was changed")
                if restore:
                    sys.meta_path[:] = snap_sys["meta_path"]
                    sys.path_hooks[:] = snap_sys["path_hooks"]
            if shell is not None:
                if "showtraceback" in vars(shell):
                    changes.append("IPython's showtraceback was replaced")
                    if restore:
                        del shell.showtraceback
                if user_ns.get("__builtins__", builtins) not in (builtins, vars(builtins)):
                    changes.append("__builtins__ was replaced")
                    if restore:
                        user_ns["__builtins__"] = builtins
                for k in config["namespace_modules"]:
                    mod = snap_sysmodules.get(config["namespace_modules"][k])
                    if k in user_ns and mod is not None and user_ns[k] is not mod:
                        changes.append(f"the name {k!r} no longer means the {mod.__name__} module")
                        if restore:
                            user_ns[k] = mod
                for k in builtin_names & set(user_ns):
                    if user_ns[k] is not ns_initial.get(k, vars(builtins).get(k)) and k not in config["graded"]:
                        changes.append(f"the built-in {k!r} was redefined")
                        if restore:
                            if k in ns_initial:
                                user_ns[k] = ns_initial[k]
                            else:
                                del user_ns[k]
        finally:
            state["busy"] -= 1
        return changes

    # ---- graded functions: look at what they return ------------------------------------------
    SUSPICIOUS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__abs__", "__sub__",
                  "__rsub__", "__add__", "__radd__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                  "__float__", "__int__", "__index__", "__round__", "__neg__", "__pos__", "__instancecheck__",
                  "__subclasscheck__", "__getattr__", "__getattribute__", "__class__", "__torch_function__",
                  "__torch_dispatch__", "__array__", "__array_ufunc__"}
    SAFE = (int, float, bool, str, bytes, complex, type(None))

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
                value = vars(klass)[name]
                fn = unwrap(value)
                code = fn.__code__ if isinstance(fn, types.FunctionType) else None
                if code is not None and (origin(code.co_filename) == "trusted"
                                         or generated and code.co_filename == "<string>"):
                    continue
                return f"an object of class {klass.__qualname__} that defines its own {name}"
        return None

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

    originals = {}

    def wrap_graded():
        for name in config["graded"]:
            fn = user_ns.get(name)
            if not callable(fn) or getattr(fn, "_grader_wrapped", False):
                continue
            originals[name] = fn

            def make(fn, name):
                import functools

                @functools.wraps(fn)
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
            user_ns[name] = make(fn, name)

    def unwrap_graded():
        for name, fn in originals.items():
            if getattr(user_ns.get(name), "_grader_wrapped", False):
                user_ns[name] = fn
        originals.clear()

    # ---- output cap ----------------------------------------------------------------------------
    streams = {}

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

    for k in ("stdout", "stderr"):
        streams[k] = Capped(getattr(sys, k))
        setattr(sys, k, streams[k])

    def on_cell(info=None, *_args):
        state["printed"] = 0
        state["truncated"] = False
        raw = getattr(info, "raw_cell", None) or ""
        log("cell", hash=hashlib.sha256(norm(raw).encode()).hexdigest(), test=state["phase"])

    if shell is not None:
        shell.events.register("pre_run_cell", on_cell)
    origin_cache[sys._getframe(1).f_code.co_filename] = "guard"  # the cell that installs the guard

    def poison(test):
        """A test whose call killed the kernel in an earlier run: its functions now just fail."""
        for name in config["graded"]:
            if callable(user_ns.get(name)):
                originals.setdefault(name, user_ns[name])

                def stub(*_a, _name=name, **_k):
                    raise RuntimeError(f"{_name} stopped the kernel (or ran out of time) when this notebook "
                                       "was graded, so this test was not run again")
                stub._grader_wrapped = True
                user_ns[name] = stub

    # ---- the checkpoints the inserted cells call ------------------------------------------------
    class Guard:
        __slots__ = ()

        def before(self, test):
            t0 = time.perf_counter()
            try:
                restored = diff(restore=True)
                if test in config.get("poisoned", ()):
                    poison(test)
                else:
                    wrap_graded()
                state["events"].clear()
                log("before", test=test, restored=restored, seconds=round(time.perf_counter() - t0, 3))
                state["phase"] = test
            except BaseException as error:  # noqa: BLE001
                log("error", test=test, where="before", error=f"{type(error).__name__}: {error}")
                raise

        def after(self, test):
            try:
                state["phase"] = None
                unwrap_graded()
                changes = diff(restore=True)
                events = [e for e in state["events"] if e["during"] == test]
                log("after", test=test, changes=changes, events=events)
            except BaseException as error:  # noqa: BLE001
                log("error", test=test, where="after", error=f"{type(error).__name__}: {error}")
                raise

    if os_rules is not None:  # no OS sandbox around this kernel: the guard refuses what it would have
        os_rules(config, record, caller, lambda: state["in_hook"] or state["busy"], resolve, under)
    sys.addaudithook(hook)
    log("install", seconds=round(time.perf_counter() - started, 3), modules=len(snap_modules),
        classes=len(snap_classes), functions=len(snap_code))
    return Guard()
