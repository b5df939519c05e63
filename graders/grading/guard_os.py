"""The in-kernel guard's file, program and signal rules, for a kernel that runs WITHOUT the OS sandbox.

Where bubblewrap starts (``graders.grading.sandbox``), the operating system keeps a kernel away from the
grader's files, the network and other processes, and this file is not used. Where it cannot start,
``graders.grading.guard_cells.guard_sources`` pastes this source after ``guard.py``'s into the guard cell, and
``_grader_guard_install`` calls :func:`_grader_guard_os_rules`: a second audit hook (which no Python code can
remove) that refuses, from Python code,

- reading the grader's files (``read_deny``: solutions, gradebook, other submissions) and writing anywhere but
  the notebook's own folder and the run's HOME and TMPDIR (``cwd``, ``write_roots``);
- programs started from student code (a note: a correct answer has no reason to, and nothing is lost);
- signals from student code to any process but the kernel itself and its own children.

Native code (``ctypes``, a compiled extension) calls the C library directly, past every audit hook: only the
sandbox contains it (docs/grading.md, "Tampering"). Paths are judged with the hook's own built-ins and the
guard's private copy of ``posixpath`` (``resolve``), so a notebook that replaces ``os.path`` changes nothing.
"""


def _grader_guard_os_rules(config, record, caller, quiet, resolve, under):
    """Install the audit hook, with the guard's own tools (bound before any student code ran):
    ``record(kind, what, severe)`` logs a finding in the guard's signed log; ``caller(frame, skip_stdlib)`` says
    whose code raised an event (``("student", file, line)``...); ``quiet()`` is true while the guard's own code
    runs; ``resolve(path)`` is the real path of what a call names (None for a descriptor), judged with the guard's
    private ``posixpath``; ``under(path, roots)``."""
    import sys

    sys.addaudithook(_make_os_rules_hook(config, record, caller, quiet, resolve, under))


def _make_path_rules(config, record, resolve, under):
    """``check_path(path, write, event)``: refuses (and records) reading the grader's files (``read_deny``) and
    writing anywhere but the notebook's folder (``cwd``), ``write_roots``, ``/dev/null`` and ``/dev/shm``;
    ``is_write(mode, flags)``: whether an ``open`` writes."""
    import builtins
    import os

    (isinstance, any, bool, int, str, PermissionError) = (builtins.isinstance, builtins.any, builtins.bool,
                                                          builtins.int, builtins.str, builtins.PermissionError)
    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    write_ok = [resolve(p) for p in [config["cwd"], *config["write_roots"]]] + ["/dev/null", "/dev/shm"]
    read_deny = [resolve(p) for p in config["read_deny"]]

    def check_path(path, write, event):
        real = resolve(path)
        if real is None or under(real, write_ok) or not (write or under(real, read_deny)):
            return
        what = "writing" if write else "reading"
        record("file", f"{what} {real} ({event})", severe=True)
        raise PermissionError(f"the autograder does not allow {what} {real}")

    def is_write(mode, flags):
        if isinstance(mode, str) and any(ch in mode for ch in "wax+"):
            return True
        return isinstance(flags, int) and bool(flags & WRITE_FLAGS)

    return check_path, is_write


def _make_is_child():
    """``is_child(pid)``: whether process ``pid`` is the kernel's own child."""
    import builtins
    import os

    (int, open, OSError, ValueError, IndexError) = (builtins.int, builtins.open, builtins.OSError, builtins.ValueError,
                                                    builtins.IndexError)
    getpid = os.getpid

    def is_child(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:  # inside the hook: no event
                return int(f.read().rsplit(")", 1)[1].split()[1]) == getpid()
        except (OSError, ValueError, IndexError):
            return False

    return is_child


def _make_os_rules_hook(config, record, caller, quiet, resolve, under):
    """The audit hook :func:`_grader_guard_os_rules` installs (its rules and tools live in its closure only):
    files (:func:`_make_path_rules`), signals to other processes than the kernel's children, programs."""
    import builtins
    import os
    import sys

    # every built-in the hook calls is its own (a notebook's variable named ``len`` changes nothing)
    (isinstance, int, len, str, PermissionError) = (builtins.isinstance, builtins.int, builtins.len, builtins.str,
                                                    builtins.PermissionError)
    getframe, getpid = sys._getframe, os.getpid
    check_path, is_write = _make_path_rules(config, record, resolve, under)
    is_child = _make_is_child()
    busy = [False]
    SPAWN = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "pty.spawn", "os.fork",
             "os.forkpty"}
    PATH_EVENTS = {"os.remove": (0,), "os.rmdir": (0,), "os.rename": (0, 1), "os.chmod": (0,), "os.chown": (0,),
                   "os.utime": (0,), "os.symlink": (1,), "os.link": (0, 1), "os.truncate": (0,), "os.mkdir": (0,),
                   "shutil.rmtree": (0,), "shutil.copyfile": (1,), "shutil.copytree": (1,), "os.chflags": (0,),
                   "os.setxattr": (0,), "os.removexattr": (0,), "sqlite3.connect": (0,)}

    def hook(event, args):
        if busy[0] or quiet():
            return
        busy[0] = True
        try:
            if event == "open":
                check_path(args[0], is_write(args[1], args[2]), "open")
            elif event in PATH_EVENTS:
                for i in PATH_EVENTS[event]:
                    if i < len(args):
                        check_path(args[i], True, event)
            elif event in ("os.kill", "os.killpg") and args and isinstance(args[0], int) \
                    and args[0] not in (0, getpid()):
                kind, fn, line = caller(getframe(1), True)
                if kind == "student" and not is_child(args[0]):
                    record("signal", f"sent a signal to process {args[0]} ({event}) at line {line}", severe=True)
                    raise PermissionError("the autograder does not let notebook code signal other processes")
            elif event in SPAWN:
                kind, fn, line = caller(getframe(1), True)
                if kind == "student":
                    record("spawn", f"started a program ({event}: {str(args[:2])[:120]}) at {fn}:{line}",
                           severe=False)
                    raise PermissionError("the autograder does not let notebook code start programs")
        finally:
            busy[0] = False

    return hook
