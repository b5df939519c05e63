"""The private course folder of one run: nbgrader autograde runs there, never in the shared course folder.

Fresh copies of the project's config and of the pristine gradebook and released files (read once per
process, so that a later run cannot be fed a changed copy), a private HOME and TMPDIR, and the
environment the kernel gets.

A run has two parts. ``course/`` (the config, the gradebook nbgrader writes, the release) is the
grader's: the kernel never sees it. ``k/`` is the kernel's, the only folder its OS sandbox
(``graders.grading.sandbox``) lets it see and write: its working folder (``course/autograded`` is a link
to ``k/autograded``), HOME, TMPDIR, the guard's log and the Unix sockets it talks to nbgrader over
(``runtime/``). ``k`` is a folder of the run, or a link into a warm slot's folder (``graders.grading.warm``),
which a slot's sandbox was started with. ``home``, ``tmp`` and ``guard.log`` in the run link into ``k``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from graders import course, machine
from graders.grading import interpreter
from graders.limits import Limits

_PRISTINE: dict[tuple[str, Limits], dict[str, bytes]] = {}


def pristine(root: Path, limits: Limits | None = None) -> dict[str, bytes]:
    """The course files a run needs, read once: later runs cannot be fed a changed copy; the config holds the
    run's ``limits`` (by default the documented defaults)."""
    limits = Limits() if limits is None else limits
    key = (str(Path(root).resolve()), limits)
    if key not in _PRISTINE:
        files = {"gradebook.db": (Path(root) / "gradebook.db").read_bytes(),
                 # the project's settings, not the course's own config: every course grades the same way
                 "nbgrader_config.py": course.config_text(limits).encode()}
        for folder in ("source", "release"):
            for path in (Path(root) / folder).rglob("*"):
                if path.is_file():
                    files[str(path.relative_to(root))] = path.read_bytes()
        _PRISTINE[key] = files
    return _PRISTINE[key]


def make(root: Path, name: str, kernel_parent: Path | None = None, limits: Limits | None = None) -> Path:
    """A new private folder: ``course/`` (config with the run's ``limits``, gradebook, notebook ``name``'s release)
    and the kernel's ``k/`` (a new folder in ``kernel_parent`` when given, linked as ``k``)."""
    run = Path(tempfile.mkdtemp(prefix="grade-"))
    make_kernel_folder(run, kernel_parent)
    for rel, data in pristine(root, limits).items():
        parts = Path(rel).parts
        if parts[0] in ("source", "release") and parts[1] != name:
            continue
        if parts[0] == "source" and rel.endswith(".ipynb"):
            continue  # the instructor's notebook (with solutions) is not needed to autograde
        dest = run / "course" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    (run / "course" / "source" / name).mkdir(parents=True, exist_ok=True)
    (run / "course" / "autograded").symlink_to(kernel_dir(run) / "autograded")
    with open(run / "course" / "nbgrader_config.py", "a") as config:
        # nbgrader and the kernel talk over Unix sockets in k/runtime (the sandboxed kernel has no network),
        # at an absolute path: the default, "kernel-ipc", is relative to each side's own working folder
        config.write("c.KernelManager.transport = 'ipc'\n"
                     f"c.KernelManager.ip = {str(kernel_dir(run) / 'runtime' / 'kernel')!r}\n")
    return run


def make_kernel_folder(run: Path, kernel_parent: Path | None = None) -> Path:
    """The kernel's ``k/`` in ``run`` (a new folder in ``kernel_parent`` when given, linked as ``k``): its HOME,
    TMPDIR, sockets, working folder, guard log and matplotlib config; the same for a grading run and the pre-flight
    kernel (``graders.grading.preflight``). Returns it as the kernel sees it."""
    if kernel_parent is None:
        (run / "k").mkdir()
    else:
        (run / "k").symlink_to(tempfile.mkdtemp(prefix="k-", dir=kernel_parent))
    for sub in ("home", "tmp", "runtime", "autograded"):
        (run / "k" / sub).mkdir()
        if sub in ("home", "tmp"):
            (run / sub).symlink_to(Path("k") / sub)
    (run / "k" / "guard.log").touch()
    # matplotlib needs a writable config folder, else it rebuilds its font list on every import: a copy of
    # the prepared one, the kernel's own (the shared one is read-only in the sandbox)
    shutil.copytree(machine.mpl_dir(), run / "k" / "mpl", ignore=shutil.ignore_patterns("*.lock", "tex.cache"))
    (run / "guard.log").symlink_to(Path("k") / "guard.log")
    return kernel_dir(run)


def kernel_dir(run: Path) -> Path:
    """The kernel's folder, as the kernel sees it (its real path: inside the sandbox ``run`` does not exist)."""
    return (run / "k").resolve()


def remove(run: Path) -> None:
    """The run's folder and the kernel folder it links to."""
    kernel = kernel_dir(run)
    shutil.rmtree(run, ignore_errors=True)
    shutil.rmtree(kernel, ignore_errors=True)


def environment(run: Path, key: str, limits: Limits | None = None) -> dict:
    """nbgrader's and the kernel's environment: private HOME and TMPDIR, shared read-only caches, no start-up hooks;
    the run's ``limits`` (by default the documented defaults) as ``GRADER_*`` variables, for nbgrader's config."""
    limits = Limits() if limits is None else limits
    env = course.venv_env()
    env.update(limits.as_env())
    k = kernel_dir(run)
    env.pop("PYTHONUSERBASE", None)
    env.update(interpreter.user_site_env())  # the kernel's HOME is its own: the grader's user site, if it has one
    env.update(HOME=str(k / "home"), TMPDIR=str(k / "tmp"),
               PYTHONDONTWRITEBYTECODE="1", COURSE_DATA=str(machine.data_dir()), GRADER_GUARD_KEY=key,
               GRADER_GUARD_LOG=str(k / "guard.log"), GRADER_MEMORY_GIB=f"{limits.memory_gib:g}",
               GRADER_KERNEL_DIR=str(k),
               MPLCONFIGDIR=str(k / "mpl"),
               # the connection file and the kernel's Unix sockets (ipc transport) live where the kernel can reach them
               JUPYTER_RUNTIME_DIR=str(k / "runtime"), JUPYTER_PATH=str(run / "jupyter"),
               # torch's compile caches default to a folder in /tmp: keep them inside the private run
               TORCHINDUCTOR_CACHE_DIR=str(k / "tmp" / "torchinductor"),
               TRITON_CACHE_DIR=str(k / "tmp" / "triton"))
    for var in ("PYTHONSTARTUP", "PYTHONPATH", "IPYTHONDIR", "JUPYTER_CONFIG_DIR",
                "JUPYTER_DATA_DIR", "PYTHONINSPECT"):
        env.pop(var, None)
    return env
