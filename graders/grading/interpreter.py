"""Where the grading interpreter imports from: the folders a kernel's ``sys.path`` holds, whatever the layout.

A kernel is ``sys.executable`` started with the run's environment (``graders.grading.rundir.environment``). Its
import folders are not only under ``sys.prefix``: a venv made with ``--system-site-packages`` (the usual way on GPU
images, over a conda base or a cluster module) reaches the base's site-packages; a ``.pth`` file may add any
folder (``site.addsitedir``); ``pip install --user`` puts packages in the user site under the instructor's HOME.
The sandox must show each of them (read-only), and the kernel must keep the user site although its HOME is its
own. (The in-kernel guard reads the kernel's own ``sys.path`` as it installs: ``guard._library_roots``.)
"""

from __future__ import annotations

import functools
import json
import os
import site
import subprocess
import sys
import tempfile


def user_site_env() -> dict[str, str]:
    """The variables that give a kernel (whose HOME is its own) the user site this interpreter imports from:
    ``PYTHONUSERBASE`` where the grader's ``sys.path`` holds its user site, else ``PYTHONNOUSERSITE=1`` (no user
    site: nothing of the instructor's HOME is imported)."""
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and os.path.isdir(user_site) and user_site in sys.path:
        return {"PYTHONUSERBASE": site.getuserbase()}
    return {"PYTHONNOUSERSITE": "1"}


#: the top-level packages a grading kernel imports to run the course: the set-up cell's
#: (``gpucourse.bootstrap.REQUIRED`` and the helper package itself) and the kernel's own. Where each one resolves
#: is what the sandbox must show.
COURSE_PACKAGES = ("gpucourse", "torch", "torchvision", "numpy", "matplotlib", "tqdm", "hypothesis", "ipykernel",
                   "IPython")

#: run by the grading interpreter as a kernel is started: its sys.path, where each course package resolves (through
#: every import finder: ``find_spec`` asks them in order, as ``import`` does), and what setuptools' editable finders
#: map (``__editable___*_finder`` modules, loaded by their ``.pth`` file, hold a ``MAPPING`` of name -> folder)
_ASK = r"""
import importlib.util, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        spec = None
    if spec is None:
        found[name] = None
    elif spec.submodule_search_locations:
        found[name] = [str(p) for p in spec.submodule_search_locations]
    elif spec.origin and spec.origin not in ("built-in", "frozen"):
        found[name] = [spec.origin]
    else:
        found[name] = []
editable = {}
for module in list(sys.modules.values()):
    mapping = getattr(module, "MAPPING", None)
    if getattr(module, "__name__", "").startswith("__editable__") and isinstance(mapping, dict):
        editable.update({k: v for k, v in mapping.items() if isinstance(k, str) and isinstance(v, str)})
print(json.dumps({"path": sys.path, "packages": found, "editable": editable}))
"""


@functools.lru_cache(maxsize=4)
def kernel_view(executable: str | None = None) -> dict:
    """What ``executable`` (by default ``sys.executable``) started as a kernel is (the run's Python variables, an
    empty working folder, which is left out of ``path``) imports from: ``{"path": [...], "packages": {name: [file
    or folder, ...] or None}, "editable": {name: folder}, "empty": folder}``. Asked once per process (a few tens of
    milliseconds): ``.pth`` files and import finders run only there. ``{}`` where the interpreter cannot say."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONNOUSERSITE",
                                                             "PYTHONUSERBASE", "PYTHONHOME")}
    env.update(user_site_env())
    with tempfile.TemporaryDirectory(prefix="syspath-") as empty:
        try:
            out = subprocess.run([executable or sys.executable, "-c", _ASK, *COURSE_PACKAGES], cwd=empty, env=env,
                                 capture_output=True, text=True, timeout=60, check=True)
            view = json.loads(out.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            return {}
        view["empty"] = os.path.realpath(empty)
    return view


@functools.lru_cache(maxsize=1)
def import_folders() -> tuple[str, ...]:
    """The absolute folders on the ``sys.path`` of ``sys.executable`` started as a kernel is (the run's Python
    variables, an empty working folder, which is left out), each as given and as its real path; those that exist."""
    view = kernel_view(sys.executable)
    entries = view.get("path", list(sys.path))  # else this process's, which the same interpreter has
    empty_real = view.get("empty")
    folders: list[str] = []
    for entry in entries:
        if not entry or not os.path.isabs(entry) or os.path.realpath(entry) == empty_real:
            continue
        for path in (entry, os.path.realpath(entry)):
            if os.path.exists(path) and path not in folders:
                folders.append(path)
    return tuple(folders)


def package_paths() -> dict[str, list[str] | None]:
    """Where the grading interpreter imports each of :data:`COURSE_PACKAGES` from, as a kernel would: its package
    folders (or its one file), each as resolved and as its real path; None for a package it cannot import. An
    editable install's import finder, a ``.pth`` file's folder, a compat-mode install's repository: whatever route
    ``import`` takes, ``find_spec`` takes too."""
    found = kernel_view(sys.executable).get("packages", {})
    result: dict[str, list[str] | None] = {}
    for name in COURSE_PACKAGES:
        places = found.get(name, [])
        if places is None:
            result[name] = None
            continue
        paths: list[str] = []
        for place in places:
            for path in (place, os.path.realpath(place)):
                if os.path.isabs(path) and os.path.exists(path) and path not in paths:
                    paths.append(path)
        result[name] = paths
    return result


def editable_folders() -> list[str]:
    """The folders setuptools' editable import finders map a package name to, in the grading interpreter (each as
    given and as its real path): importable by the kernel although no ``sys.path`` entry holds them."""
    folders: list[str] = []
    for folder in kernel_view(sys.executable).get("editable", {}).values():
        for path in (folder, os.path.realpath(folder)):
            if os.path.isabs(path) and os.path.exists(path) and path not in folders:
                folders.append(path)
    return folders
