"""What the first cell of every notebook does once the helper package is importable.

The cell itself (``graders.authoring.SETUP_SOURCE``) only makes sure that *this* package, in the
version the notebook was written for, is installed; it has to work on a fresh Colab runtime where
nothing of the course exists yet. Everything else happens here, in :func:`setup`:

1. say so when the installed helper package is not the version the notebook expects;
2. install the libraries that are missing, and only those: never torch when torch is present
   (Colab ships it, built for its GPU; a reinstall would replace it with a generic build), and
   with torch present, any missing torchvision is pinned to the installed torch;
3. fetch Fashion-MNIST only when it is not cached yet (full mode only: the quick mode used by the
   autograder and CI leaves it to :func:`gpucourse.data.fashion_mnist` at first use);
4. print the environment report (torch, device, GPU name and compute capability, or what is
   simulated without a GPU, and on Colab the advice to pick a T4 runtime) and return
   ``(device, quick)``.

Nothing here imports torch before step 2 has made sure it exists. Running it again changes
nothing and installs nothing.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from . import __version__

#: (module to import, what pip installs) for every library the notebooks use.
REQUIRED = (
    ("torch", "torch"),
    ("torchvision", "torchvision"),
    ("numpy", "numpy"),
    ("matplotlib", "matplotlib"),
    ("tqdm", "tqdm"),
    ("hypothesis", "hypothesis"),  # the checks draw their inputs with it (gpucourse.domains)
)


def has_module(name: str) -> bool:
    """True when ``import name`` would find something (without importing it)."""
    if name in sys.modules:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_requirements(required=REQUIRED) -> list[str]:
    """pip names of the required libraries that are not installed."""
    return [pip_name for module, pip_name in required if not has_module(module)]


def install_command(missing: list[str]) -> list[str]:
    """The pip command that installs ``missing`` and nothing else.

    When torch is installed, it is named at its installed version so that pip cannot replace
    it (a missing torchvision would otherwise pull the newest torch).
    """
    cmd = [sys.executable, "-m", "pip", "install", "-q", *missing]
    if "torch" not in missing and any(name.startswith("torchvision") for name in missing):
        try:
            cmd.append(f"torch=={importlib.metadata.version('torch')}")
        except importlib.metadata.PackageNotFoundError:  # importable but not pip-installed: leave it alone
            pass
    return cmd


#: What pip, git and the resolver print when the runtime cannot reach the network.
OFFLINE = ("Could not resolve host", "name resolution", "Failed to establish", "Failed to connect",
           "Network is unreachable", "timed out")
#: What they print when the network works but the repository, branch, tag or package version does not exist.
#: (GitHub answers a private or missing repository by asking for a password, which Colab cannot give.)
NOT_FOUND = ("not found", "could not read Username", "couldn't find remote ref", "did not match any",
             "No matching distribution")


def pip_failure(stderr: str) -> str:
    """``"offline"``, ``"not found"`` or ``"other"``: why a pip install failed, from what it printed."""
    if any(marker in stderr for marker in OFFLINE):  # first: offline, pip also finds no matching version
        return "offline"
    if any(marker in stderr for marker in NOT_FOUND):
        return "not found"
    return "other"


def pip_reason(stderr: str) -> str:
    """The lines of pip's error output that say why (git's ``fatal:``, pip's ``ERROR:``), else its last line."""
    why = [line.strip() for line in stderr.splitlines() if "fatal:" in line or "ERROR:" in line]
    return "\n".join(why[:3] or stderr.strip().splitlines()[-1:])


def install_missing(required=REQUIRED) -> list[str]:
    """Install whatever of ``required`` is missing; return what was installed."""
    missing = missing_requirements(required)
    if not missing:
        return []
    if os.environ.get("GPUCOURSE_HANDIN"):  # the hand-in check's run of a copy installs nothing (gpucourse.handin)
        raise SystemExit("This runtime lacks " + ", ".join(missing) + ": run the set-up cell at the top of the "
                         "notebook first (the hand-in check installs nothing).")
    print("Installing what this runtime lacks: " + ", ".join(missing) + " ...")
    result = subprocess.run(install_command(missing), capture_output=True, text=True)
    if result.returncode != 0:
        hint = {"offline": "This runtime is offline: reconnect (on Colab: Runtime > Disconnect and delete runtime) "
                           "and run this cell again.",
                "not found": "pip found no version of it that fits this Python and torch.",
                }.get(pip_failure(result.stderr), "Is this runtime online?")
        raise SystemExit(
            "Could not install " + ", ".join(missing) + ". " + hint + " "
            "Outside Colab, install the course's requirements instead: pip install -r requirements.txt\n"
            "pip said: " + pip_reason(result.stderr)
        )
    importlib.invalidate_caches()
    return missing


def check_version(expected: str | None) -> bool:
    """True when this package is the version the notebook expects; otherwise say what to do."""
    if expected is None or expected == __version__:
        return True
    print(f"WARNING: this notebook was written for gpucourse {expected}, but gpucourse {__version__} is "
          "installed. Open the newest copy of the notebook from the course's start page (colab/README.md), "
          "or restart the session and run this cell again.")
    return False


def data_present(root: str | Path | None = None) -> bool:
    """True when Fashion-MNIST (or its offline stand-in, while no system files could replace it) is cached."""
    from .data import cache_ready, default_root

    return cache_ready(root if root is not None else default_root())


def shown_path(path: str | Path) -> str:
    """``path`` as a notebook prints it: the home folder as ``~``, so that no output (a shared notebook, the
    reader's book) carries the user's name or the machine's layout."""
    path, home = Path(path), Path.home()
    try:
        return str(Path("~") / path.relative_to(home))
    except ValueError:
        return str(path)


def ensure_data(root: str | Path | None = None) -> str:
    """Put Fashion-MNIST in the cache unless it is there; return ``"cached"``, ``"system"`` (the official files
    a system package installed), ``"downloaded"`` or ``"stand-in"``."""
    from .data import default_root, fashion_mnist, is_standin, system_dir

    root = Path(root if root is not None else default_root())
    if data_present(root):
        standin = " (the offline stand-in)" if is_standin(root) else ""
        print(f"Data: Fashion-MNIST is cached in {shown_path(root)}{standin}")
        return "cached"
    print(f"Data: fetching Fashion-MNIST into {shown_path(root)} (once) ...")
    dataset = fashion_mnist(train=True, root=root, verbose=False)
    if is_standin(root):
        print("Data: Fashion-MNIST is not reachable; the notebooks use a clearly labelled offline stand-in.")
        return "stand-in"
    if dataset.source == "system":
        print(f"Data: the official files from {system_dir()}, checksums verified.")
        return "system"
    return "downloaded"


def setup(expected_version: str | None = None, *, install: bool = True, data: bool | None = None):
    """Everything the first cell does once gpucourse is importable; returns ``(device, quick)``.

    ``data=None`` fetches the data in full mode and leaves it to first use in quick mode.
    """
    check_version(expected_version)
    if install:
        install_missing()
    from .env import environment_report, quick_mode  # imports torch: only now that it surely exists

    quick = quick_mode()
    if data if data is not None else not quick:
        ensure_data()
    device = environment_report()
    return device, quick
