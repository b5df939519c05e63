"""Python layouts an instructor grades from, made on a CPU box (issue 33): a venv whose packages live outside its
prefix. On GPU images the usual way is ``python3 -m venv --system-site-packages`` over the image's Python, whose
site.py then appends the base's site-packages to ``sys.path`` and runs its ``.pth`` files (Python's docs, "site";
shared/gpu-kit/run.sh does the same with a ``.pth`` file). Here the base is this repository's own venv."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path


def venv_over(folder: Path, site_folder: str | Path | None = None) -> Path:
    """A venv in ``folder`` (made with ``--without-pip``, in about a second) that imports from ``site_folder`` (by
    default this interpreter's site-packages, torch and nbgrader included) through a ``.pth`` file calling
    ``site.addsitedir``: nothing it imports lies under its ``sys.prefix``. Returns its ``python``."""
    site_folder = site_folder or sysconfig.get_paths()["purelib"]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = Path(folder) / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "over.pth").write_text(f"import site; site.addsitedir({str(site_folder)!r})\n")
    return python


def user_site_over(home: Path, site_folder: str | Path | None = None) -> Path | None:
    """The interpreter this repository's venv was made from, with ``site_folder`` (by default the venv's
    site-packages) reached through the user site of ``home`` (``pip install --user``'s folder, under
    ``~/.local``; a ``.pth`` file there calls ``site.addsitedir``): run it with ``HOME=home``. None where that
    interpreter has no user site."""
    site_folder = site_folder or sysconfig.get_paths()["purelib"]
    base = Path(getattr(sys, "_base_executable", "") or Path(sys.base_prefix) / "bin" / "python3")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    found = subprocess.run([str(base), "-c", "import site; print(site.ENABLE_USER_SITE, site.getusersitepackages())"],
                           env=env, capture_output=True, text=True)
    enabled, _, user_site = found.stdout.strip().partition(" ")
    if found.returncode != 0 or enabled != "True":
        return None
    Path(user_site).mkdir(parents=True, exist_ok=True)
    Path(user_site, "course.pth").write_text(f"import site; site.addsitedir({str(site_folder)!r})\n")
    return base


if __name__ == "__main__":  # python tests/helpers/layouts.py FOLDER: what CI's main job grades from
    print(venv_over(Path(sys.argv[1])))
