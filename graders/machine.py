"""What the grading machine provides to every kernel, made ready before any student code runs.

A kernel may write only inside its private run folder, the data cache and matplotlib's cache
(the guard's audit hook refuses everything else). On a fresh machine those caches do not exist
yet: a notebook that creates them (``Path.mkdir(parents=True)`` makes ``~/.cache`` first) would
be reported for writing outside them, and every student would be blamed for what the machine
lacked. So the grader creates both folders and fetches the data once, here, in its own process.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """The data cache every kernel shares: ``$COURSE_DATA``, else gpucourse's default."""
    from gpucourse.data import default_root
    return Path(os.environ.get("COURSE_DATA") or default_root())


def mpl_dir() -> Path:
    return Path(os.environ.get("MPLCONFIGDIR") or Path.home() / ".cache" / "matplotlib")


def prepare(verbose: bool = True) -> None:
    """Create the shared caches and put Fashion-MNIST (or its announced stand-in) in place."""
    from gpucourse.data import fashion_mnist

    mpl_dir().mkdir(parents=True, exist_ok=True)
    root = data_dir()
    root.mkdir(parents=True, exist_ok=True)
    dataset = fashion_mnist(train=True, root=root, verbose=False)
    if verbose:
        what = "the offline stand-in (no real Fashion-MNIST on this machine)" if dataset.is_standin \
            else "Fashion-MNIST"
        print(f"data: kernels read {what} from {root}", flush=True)
