"""What the grading machine provides to every kernel, made ready before any student code runs.

A kernel may write only inside its private run folder: the data cache and matplotlib's font list are
read-only to it (in the OS sandbox, ``graders.grading.sandbox``; each kernel gets a copy of the font list).
On a fresh machine neither exists yet, and a kernel cannot make them for the next one; a notebook that
tried would be blamed for what the machine lacked. So the grader creates both and fetches the data once,
here, in its own process.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

log = logging.getLogger(__name__)


def data_dir() -> Path:
    """The data cache every kernel shares: ``$COURSE_DATA``, else gpucourse's default (``default_root`` reads both)."""
    from gpucourse.datacache import default_root  # without torch: this process only needs the folder
    return default_root()


def mpl_dir() -> Path:
    return Path(os.environ.get("MPLCONFIGDIR") or Path.home() / ".cache" / "matplotlib")


def font_cache() -> None:
    """matplotlib's font list, built once: each kernel gets a copy (without one, every kernel builds its own)."""
    if any(mpl_dir().glob("fontlist-*.json")):
        return
    env = dict(os.environ, MPLCONFIGDIR=str(mpl_dir()))
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def caches() -> None:
    """The shared cache folders, and matplotlib's font list in its own."""
    mpl_dir().mkdir(parents=True, exist_ok=True)
    font_cache()
    data_dir().mkdir(parents=True, exist_ok=True)


def prepare(verbose: bool = True) -> None:
    """Create the shared caches and put Fashion-MNIST (or its announced stand-in) in place. A cache that is ready
    is left as it is, without importing torch here (each kernel loads the files with torchvision)."""
    from gpucourse.datacache import cache_ready, is_standin

    caches()
    root = data_dir()
    if not cache_ready(root):
        from gpucourse.data import fashion_mnist
        fashion_mnist(train=True, root=root, verbose=False)
    if verbose:
        what = "the offline stand-in (no real Fashion-MNIST on this machine)" if is_standin(root) \
            else "Fashion-MNIST"
        log.info("data: kernels read %s from %s", what, root)
