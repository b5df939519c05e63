"""Where the course keeps Fashion-MNIST, and whether the files are there: the part of :mod:`gpucourse.data` that
needs no torch, so that the grader's own process can ask before any notebook runs without importing torch
(about 2 s) just to find a folder. :mod:`gpucourse.data` fills the cache and loads it.
"""

from __future__ import annotations

import os
from pathlib import Path

STANDIN_MARKER = "STAND-IN-NOT-FASHION-MNIST.txt"
RAW_FILES = {
    True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
SIZES = {True: 60_000, False: 10_000}
#: Size in bytes and SHA-256 of each official file, decompressed. The checksums were computed from
#: Debian's dataset-fashion-mnist 0.0~git20200523.55506a9-1 and agree with those published for the
#: decompressed files of the official download (whose archives match zalandoresearch's MD5s).
OFFICIAL_FILES = {
    "train-images-idx3-ubyte": (47_040_016, "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"),
    "train-labels-idx1-ubyte": (60_008, "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"),
    "t10k-images-idx3-ubyte": (7_840_016, "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"),
    "t10k-labels-idx1-ubyte": (10_008, "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"),
}
#: Where a system package keeps the official ``.gz`` files; the environment variable overrides it
#: (the tests point it at an empty folder to play "package not installed").
SYSTEM_DIR = Path("/usr/share/datasets/fashion-mnist")
SYSTEM_DIR_ENV = "GPUCOURSE_SYSTEM_DATA"


def default_root() -> Path:
    """``$COURSE_DATA`` if set, else a cache folder shared by every notebook of the course."""
    env = os.environ.get("COURSE_DATA")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "gpucourse" / "data"


def is_standin(root: str | os.PathLike) -> bool:
    return (Path(root) / "FashionMNIST" / "raw" / STANDIN_MARKER).exists()


def _have_raw(root: Path) -> bool:
    raw = root / "FashionMNIST" / "raw"
    return all((raw / name).exists() for pair in RAW_FILES.values() for name in pair)


def cache_ready(root: str | os.PathLike) -> bool:
    """True when the cache needs no more work: the four files are there, and they are not a stand-in
    that the system's official files could replace."""
    root = Path(root)
    return _have_raw(root) and not (is_standin(root) and system_files_present())


def system_dir() -> Path:
    """``$GPUCOURSE_SYSTEM_DATA`` if set, else Debian's ``/usr/share/datasets/fashion-mnist``."""
    env = os.environ.get(SYSTEM_DIR_ENV)
    return Path(env) if env else SYSTEM_DIR


def system_files_present() -> bool:
    """True when the system folder holds any of the official ``.gz`` files (an empty or missing folder: no package)."""
    return any((system_dir() / f"{name}.gz").exists() for name in OFFICIAL_FILES)
