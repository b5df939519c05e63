"""The OS sandbox every grading kernel runs in: bubblewrap (``bwrap``, a Debian package).

The kernel sees, read-only, the system's programs and libraries, the Python installation and the venv, the
helper package and the data cache; writable, only its own kernel folder (its working folder, HOME, TMPDIR,
the guard's log and the sockets it talks to nbgrader over), a private ``/tmp`` and ``/dev/shm``; and nothing
else of the machine: no gradebook, no ``solutions/``, no other submission, no HOME of the person grading.
It has no network (its own empty network namespace: nbgrader and the kernel talk over Unix sockets, ZeroMQ's
``ipc`` transport), its own PID and IPC namespaces (it cannot see or signal the grader's processes), no
capabilities, and it dies with the process that started it.

Where the sandbox cannot start (``bwrap`` missing, or user namespaces disabled, as in some containers and
under Ubuntu's AppArmor rule), :func:`probe` says why in one line and the kernel runs as before, with the
in-kernel guard's file rules (``graders.grading.guard_os``) in the sandbox's place.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from graders import machine
from graders.grading import interpreter
from graders.paths import REPO

#: GRADER_SANDBOX=0 turns the sandbox off (a debugging aid; ``autograde --check`` says so).
ENV_SWITCH = "GRADER_SANDBOX"


@dataclass(frozen=True)
class Protection:
    sandboxed: bool
    why: str  # one line: what protects the grading machine

    def line(self) -> str:
        return self.why


def system_paths() -> list[str]:
    """What a Python kernel needs from the system, read-only: programs, libraries, the interpreter, the venv,
    every folder the grading interpreter imports from (``interpreter.import_folders``: a base prefix's
    site-packages a venv reaches, a ``.pth`` file's folders, the user site), wherever they are, and the folder
    each course package really resolves to (``interpreter.package_paths``, ``interpreter.editable_folders``: an
    editable install's import finder maps a package to a folder no ``sys.path`` entry holds, often another clone)."""
    paths = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
             "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/passwd",
             "/etc/group", "/etc/nsswitch.conf", "/etc/fonts", "/etc/alternatives"]
    for prefix in {sys.base_prefix, sys.prefix, os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}:
        paths.append(prefix)
    folders = [p for p in interpreter.import_folders() if may_show(p)]
    packages = [p for places in interpreter.package_paths().values() for p in places or []]
    paths += folders
    paths += [p for p in [*packages, *interpreter.editable_folders()]
              if may_show(p) and not any(_within(p, folder) for folder in folders)]
    return paths


def _within(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder).rstrip("/")
    return path == folder or path.startswith(folder + "/")


def is_course_checkout(folder: str | Path) -> bool:
    """A clone of this course (the grader's own or another): its solutions and hidden tests are there."""
    return (Path(folder) / "sources" / "manifest.toml").is_file() and (Path(folder) / "solutions").is_dir()


#: what of the grader's repository a kernel never sees, even where an import folder lies inside it
PRIVATE = ("solutions", "sources", "graders", "samples", "tests", ".git")


def may_show(path: str) -> bool:
    """Whether the sandbox may show ``path``: never the grader's repository, a clone of the course (an editable
    install in setuptools' "compat" mode puts one on sys.path) or a folder above one of them, nor the repository's
    :data:`PRIVATE` folders; solutions/, the hidden tests and the graders stay out of sight. A venv inside the
    repository (``.venv``) may be shown, and so may a clone's helper package folder, which an import finder maps to
    (the grader's own is bound alone: ``readonly_paths``)."""
    repo = str(REPO.resolve())
    real = os.path.realpath(path)
    if _within(repo, real) or is_course_checkout(real):
        return False
    return not any(_within(real, os.path.join(repo, name)) for name in PRIVATE)


def readonly_paths() -> list[str]:
    """Course files the kernel reads: the helper package (not the rest of the repository), data, font cache."""
    return [str(REPO / "gpucourse"), str(machine.data_dir()), str(machine.mpl_dir())]


#: where images put the NVIDIA driver's user-space libraries and CUDA outside the system's library folders
#: (the H200 image of 2026-12-04: /usr/local/nvidia, on LD_LIBRARY_PATH; nvidia-container-toolkit images often
#: /usr/local/cuda*/compat); each is shown when it exists, with every folder LD_LIBRARY_PATH and ld.so.conf name
DRIVER_FOLDERS = ("/usr/local/nvidia", "/usr/local/cuda", "/run/nvidia/driver", "/opt/nvidia")


def gpu_args(dev: Path = Path("/dev"), environ: dict | None = None,
             ld_conf: Path = Path("/etc/ld.so.conf.d")) -> list[str]:
    """The NVIDIA device files (``/dev/nvidia0``, ``nvidiactl``, ``nvidia-uvm``...), ``/sys`` and the folders of the
    driver's libraries, when the grading machine has a GPU (``dev`` holds an ``nvidia*`` file); none otherwise.
    CUDA opens the devices and ``dlopen``s ``libcuda.so.1`` found through ``LD_LIBRARY_PATH`` or ``ld.so.cache``;
    Triton also runs ``ldconfig -p`` (``/sbin``, bound with the system)."""
    environ = os.environ if environ is None else environ
    devices = sorted(Path(dev).glob("nvidia*"))
    if not devices:
        return []
    args = []
    for device in devices:
        args += ["--dev-bind-try", str(device), str(device)]
    args += ["--ro-bind-try", "/sys", "/sys"]
    folders = list(DRIVER_FOLDERS)
    folders += [p for p in environ.get("LD_LIBRARY_PATH", "").split(":") if os.path.isabs(p)]
    for conf in sorted(Path(ld_conf).glob("*.conf")):
        try:
            folders += [line.strip() for line in conf.read_text().splitlines() if line.strip().startswith("/")]
        except OSError:
            continue
    seen = set()
    for folder in folders:
        for path in (folder, os.path.realpath(folder)):
            if path not in seen and os.path.isdir(path):
                seen.add(path)
                args += ["--ro-bind", path, path]
    return args


def bwrap_args(writable: list[str], chdir: str | None = None) -> list[str]:
    """bubblewrap's options for a kernel that may write only ``writable`` (bound at the same paths)."""
    # ipykernel exits when its parent seems gone, and its parent in its own PID namespace is bwrap's init:
    # JPY_PARENT_PID=1 is ipykernel's "no parent to watch" (--die-with-parent ends it with the grader)
    args = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--setenv", "JPY_PARENT_PID", "1"]
    seen = set()
    for path in system_paths() + readonly_paths():
        if path not in seen and os.path.exists(path):
            seen.add(path)
            args += ["--ro-bind", path, path]
    args += gpu_args()
    for path in writable:
        args += ["--bind", path, path]
    if chdir:
        args += ["--chdir", chdir]
    return args


def bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def probe() -> Protection:
    """Whether a sandbox starts here: try one (a fraction of a second), once per process."""
    if os.environ.get(ENV_SWITCH, "1") == "0":
        return Protection(False, f"OS sandbox off ({ENV_SWITCH}=0): student code runs with the grader's access "
                                 "to files and network; only the in-kernel guard's file rules protect this machine")
    exe = bwrap()
    if exe is None:
        return Protection(False, "OS sandbox unavailable: bubblewrap is not installed (apt-get install bubblewrap); "
                                 "only the in-kernel guard's file rules protect this machine")
    try:
        out = subprocess.run([exe, *bwrap_args([]), sys.executable, "-S", "-c", "print('ok')"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Protection(False, f"OS sandbox unavailable: bwrap did not start ({exc}); only the in-kernel guard's "
                                 "file rules protect this machine")
    if out.returncode != 0 or out.stdout.strip() != "ok":
        reason = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1][:160]
        return Protection(False, f"OS sandbox unavailable: bwrap could not start ({reason}; user namespaces may be "
                                 "disabled here); only the in-kernel guard's file rules protect this machine")
    return Protection(True, "OS sandbox: bubblewrap, each kernel sees only its own folder, a private /tmp, the venv "
                            "and the course data read-only; no network, no other process")


def active() -> bool:
    return probe().sandboxed


#: what ``autograde --check`` runs inside a sandbox: each attempt a submission might make, and what happened
PROBE = r"""
import json, os, socket, sys
found = {}
def attempt(name, fn):
    try:
        found[name] = "reached: " + str(fn())[:80]
    except Exception as exc:
        found[name] = "contained: " + type(exc).__name__ + (f" ({exc})"[:200] if str(exc) else "")
attempt("read the grader's files", lambda: os.listdir(sys.argv[1]))
attempt("read the grader's HOME", lambda: "|".join(sorted(os.listdir(sys.argv[2]))))
attempt("write outside its folder", lambda: open(sys.argv[3], "w").write("x"))
attempt("connect out", lambda: socket.create_connection(("127.0.0.1", int(sys.argv[4])), timeout=2))
def others():
    seen = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid() and int(p) > 2]
    if not seen:
        raise LookupError("no process of the machine is visible")
    return seen[:5]
attempt("see other processes", others)
print(json.dumps(found))
"""


def check_containment() -> list[tuple[str, bool, str]]:
    """Run :data:`PROBE` in a sandbox like a kernel's: ``(attempt, contained, what happened)`` for each."""
    import json
    import tempfile
    with tempfile.TemporaryDirectory(prefix="sandbox-check-") as folder, \
            socket_listening() as port:
        outside = Path(folder) / "outside" / "written-by-the-probe"
        outside.parent.mkdir()
        inside = Path(folder) / "k"
        inside.mkdir()
        command = [bwrap(), *bwrap_args([str(inside)], chdir=str(inside)), sys.executable, "-S", "-c", PROBE,
                   str(REPO / "solutions"), str(Path.home()), str(outside), str(port)]
        out = subprocess.run(command, capture_output=True, text=True, timeout=120)
        found = json.loads(out.stdout.strip().splitlines()[-1])
        wrote = outside.exists()
    rows = []
    for name, what in found.items():
        contained = what.startswith("contained")
        if name == "write outside its folder" and wrote:
            contained, what = False, "reached: the file exists on the grading machine"
        if name == "read the grader's HOME" and not contained:
            # only the folders that lead to what the sandbox shows (the Python install, the caches) may be there
            shown = set(what.split(": ", 1)[1].split("|"))
            contained = shown <= home_entries_shown([inside])
            if contained:
                what = f"contained: only the way to its own folder, the read-only caches and Python " \
                       f"({', '.join(sorted(shown))})"
        rows.append((name, contained, what))
    return rows


def home_entries_shown(writable: list[Path] = ()) -> set[str]:
    """The names in HOME that lead to a path the sandbox binds (bubblewrap makes the folders on the way): the
    Python install, the caches, and the kernel's own ``writable`` folder (a TMPDIR inside HOME puts it there)."""
    home = Path.home().resolve()
    names = set()
    for path in [*system_paths(), *readonly_paths(), *writable]:
        try:
            names.add(Path(path).resolve().relative_to(home).parts[0])
        except (ValueError, IndexError):
            pass
    return names


class socket_listening:
    """A TCP port on 127.0.0.1 that accepts, for the probe to try."""

    def __enter__(self) -> int:
        import socket
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(1)
        return self.server.getsockname()[1]

    def __exit__(self, *exc) -> None:
        self.server.close()
