"""Python layouts an instructor grades from, made on a CPU box (issue 33): a venv whose packages live outside its
prefix. On GPU images the usual way is ``python3 -m venv --system-site-packages`` over the image's Python, whose
site.py then appends the base's site-packages to ``sys.path`` and runs its ``.pth`` files (Python's docs, "site";
shared/gpu-kit/run.sh does the same with a ``.pth`` file). Here the base is this repository's own venv."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path


def venv_over(folder: Path, site_folder: str | Path | None = None) -> Path:
    """A venv in ``folder`` (made with ``--without-pip``, in about a second) that imports from ``site_folder`` (by
    default this interpreter's site-packages, torch and nbgrader included) through a ``.pth`` file calling
    ``site.addsitedir``: nothing it imports lies under its ``sys.prefix``. Returns its ``python``."""
    site_folder = site_folder or sysconfig.get_paths()["purelib"]
    return bare_venv(folder, "over.pth", f"import site; site.addsitedir({str(site_folder)!r})\n")


def bare_venv(folder: Path, pth_name: str, pth_text: str) -> Path:
    """A venv in ``folder`` made with ``--without-pip`` (about a second) whose site-packages holds one ``.pth`` file,
    ``pth_name`` with ``pth_text``. Returns its ``python``."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = Path(folder) / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, pth_name).write_text(pth_text)
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


def another_clone(folder: Path) -> Path:
    """A second checkout of the course in ``folder``, as an instructor keeps one beside the grading checkout: the
    helper package and the project file, and (for the sandbox to keep out of sight) ``solutions/`` and
    ``sources/manifest.toml``. Returns it."""
    from graders.paths import REPO
    folder.mkdir(parents=True)
    shutil.copytree(REPO / "gpucourse", folder / "gpucourse", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", folder / "pyproject.toml")
    (folder / "solutions").mkdir()
    (folder / "solutions" / "01_devices.ipynb").write_text("the other clone's solutions")
    (folder / "sources").mkdir()
    shutil.copy(REPO / "sources" / "manifest.toml", folder / "sources" / "manifest.toml")
    return folder


def editable_from(venv: Path, clone: Path) -> Path:
    """A venv over this interpreter's site-packages (:func:`venv_over`) with the helper package installed editable
    from ``clone`` (``pip install -e CLONE``: setuptools' import finder in the venv's site-packages maps
    ``gpucourse`` to ``CLONE/gpucourse``, a folder no ``sys.path`` entry holds). Returns its ``python``."""
    python = venv_over(venv)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-build-isolation", "--disable-pip-version-check", "-e", str(clone)],
                   check=True, capture_output=True, text=True)
    return python


def without_helper_package(venv: Path, site_folder: str | Path | None = None) -> Path:
    """A venv that reaches ``site_folder`` (by default this interpreter's site-packages: torch, nbgrader) through a
    plain path line in a ``.pth`` file, which runs none of that folder's own ``.pth`` files: the editable install of
    the helper package there is not seen, and a kernel cannot import ``gpucourse`` (the grader still can, from its
    working folder, the repository). Returns its ``python``."""
    site_folder = site_folder or sysconfig.get_paths()["purelib"]
    return bare_venv(venv, "plain.pth", f"{site_folder}\n")


if __name__ == "__main__":  # python tests/helpers/layouts.py FOLDER: what CI's main job grades from
    print(venv_over(Path(sys.argv[1])))
