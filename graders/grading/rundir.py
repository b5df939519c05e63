"""The private course folder of one run: nbgrader autograde runs there, never in the shared course folder.

Fresh copies of the project's config and of the pristine gradebook and released files (read once per
process, so that a later run cannot be fed a changed copy), a private HOME and TMPDIR, and the
environment the kernel gets.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from graders import course, machine

_PRISTINE: dict[str, dict[str, bytes]] = {}


def pristine(root: Path) -> dict[str, bytes]:
    """The course files a run needs, read once: later runs cannot be fed a changed copy."""
    key = str(Path(root).resolve())
    if key not in _PRISTINE:
        files = {"gradebook.db": (Path(root) / "gradebook.db").read_bytes(),
                 # the project's settings, not the course's own config: every course grades the same way
                 "nbgrader_config.py": course.config_text().encode()}
        for folder in ("source", "release"):
            for path in (Path(root) / folder).rglob("*"):
                if path.is_file():
                    files[str(path.relative_to(root))] = path.read_bytes()
        _PRISTINE[key] = files
    return _PRISTINE[key]


def make(root: Path, name: str) -> Path:
    """A new private folder: ``course/`` (config, gradebook, notebook ``name``'s release), ``home/``, ``tmp/``."""
    run = Path(tempfile.mkdtemp(prefix="grade-"))
    for rel, data in pristine(root).items():
        parts = Path(rel).parts
        if parts[0] in ("source", "release") and parts[1] != name:
            continue
        if parts[0] == "source" and rel.endswith(".ipynb"):
            continue  # the instructor's notebook (with solutions) is not needed to autograde
        dest = run / "course" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    (run / "course" / "source" / name).mkdir(parents=True, exist_ok=True)
    for sub in ("home", "tmp"):
        (run / sub).mkdir()
    return run


def environment(run: Path, key: str) -> dict:
    """nbgrader's and the kernel's environment: private HOME and TMPDIR, shared read-only caches, no start-up hooks."""
    env = course.venv_env()
    env.update(HOME=str(run / "home"), TMPDIR=str(run / "tmp"), PYTHONNOUSERSITE="1",
               PYTHONDONTWRITEBYTECODE="1", COURSE_DATA=str(machine.data_dir()), GRADER_GUARD_KEY=key,
               GRADER_GUARD_LOG=str(run / "guard.log"),
               MPLCONFIGDIR=str(machine.mpl_dir()),
               # torch's compile caches default to a folder in /tmp: keep them inside the private run
               TORCHINDUCTOR_CACHE_DIR=str(run / "tmp" / "torchinductor"),
               TRITON_CACHE_DIR=str(run / "tmp" / "triton"))
    for var in ("PYTHONSTARTUP", "PYTHONPATH", "IPYTHONDIR", "JUPYTER_CONFIG_DIR", "JUPYTER_PATH",
                "JUPYTER_DATA_DIR", "PYTHONINSPECT"):
        env.pop(var, None)
    return env
