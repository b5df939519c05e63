"""The file watch: files a run must not change, compared before and after each run (docs/grading.md, "Tampering").

Native code in a notebook (``ctypes``, a compiled extension) acts past Python's audit hooks, so the in-kernel
guard cannot see what it writes; what it could change to reach the grader or later kernels is watched here: the
helper package, the venv's start-up files (``site-packages``: a new ``.pth`` or ``sitecustomize.py`` runs in
every later kernel) and the submissions. With ``GRADER_WATCH_FILES=1`` (``Limits.watch_files``) the pipeline
starts the watch in its ``PREPARE`` step :func:`start` and the ``execute`` step checks it after every attempt
(:func:`changes`); a change withholds the score for review (``graders.grading.review``).
"""

from __future__ import annotations

import os
from pathlib import Path

from graders.paths import REPO


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


def start(job) -> None:
    """Step 3 of PREPARE: the watch over the helper package, the venv's start-up files and the student's
    submissions, when the run's limits ask for it (``watch_files``); before any of the student's code runs."""
    if not job.limits.watch_files:
        return None
    folder = job.item.folder
    deep = [REPO / "gpucourse"] + ([Path(folder).resolve().parent] if folder is not None else [])
    job.watch = FileWatch(deep=deep, shallow=site_packages())
    return None


def changes(job) -> list[str]:
    """What changed since the watch started or was last checked (nothing when no watch runs)."""
    return job.watch.check() if job.watch else []
