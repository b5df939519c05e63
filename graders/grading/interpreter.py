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


@functools.lru_cache(maxsize=1)
def import_folders() -> tuple[str, ...]:
    """The absolute folders on the ``sys.path`` of ``sys.executable`` started as a kernel is (the run's Python
    variables, an empty working folder, which is left out), each as given and as its real path; those that exist.
    Found by asking the interpreter once per process (a few tens of milliseconds): ``.pth`` files run only there."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONNOUSERSITE",
                                                             "PYTHONUSERBASE", "PYTHONHOME")}
    env.update(user_site_env())
    with tempfile.TemporaryDirectory(prefix="syspath-") as empty:
        try:
            out = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path))"],
                                 cwd=empty, env=env, capture_output=True, text=True, timeout=60, check=True)
            entries = json.loads(out.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            entries = list(sys.path)  # this process's, which the same interpreter has
        empty_real = os.path.realpath(empty)
    folders: list[str] = []
    for entry in entries:
        if not entry or not os.path.isabs(entry) or os.path.realpath(entry) == empty_real:
            continue
        for path in (entry, os.path.realpath(entry)):
            if os.path.exists(path) and path not in folders:
                folders.append(path)
    return tuple(folders)
