"""The build as an author meets it: in a copy of the repository, never in this checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from graders.paths import REPO

COPIED = ["graders", "gpucourse", "sources", "colab", "solutions", "notebooks", "samples", "README.md"]


def copy_repo(dest: Path) -> Path:
    """What ``python -m graders build`` reads and writes, copied into ``dest``."""
    for part in COPIED:
        path = REPO / part
        (shutil.copytree(path, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
         if path.is_dir() else shutil.copy2(path, dest / part))
    return dest


def run_build(repo: Path, *args: str) -> subprocess.CompletedProcess:
    # the copy's own graders and gpucourse come first: the build writes into the copy, never into this checkout
    env = {"PYTHONPATH": str(repo), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run([sys.executable, "-m", "graders", "build", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600)
