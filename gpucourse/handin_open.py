"""The notebook as saved, seen from its own kernel (the hand-in cell): on Colab the open notebook, in Jupyter its file.

- Colab: the runtime's own way of reading the open notebook, ``google.colab._message.blocking_request("get_ipynb")``
  (what Colab's ``files`` and export helpers use); Colab saves as you go, and the name it will download it under is in
  its metadata (``Copy of 01_devices.ipynb``).
- Jupyter (Lab, Notebook, VS Code): the file the kernel was started for (``JPY_SESSION_NAME``, which jupyter_server
  sets, or VS Code's ``__vsc_ipynb_file__``), else the newest file in the working folder named like the notebook
  (``01_devices.ipynb``, ``Copy of 01_devices.ipynb``, ``01_devices-Copy1.ipynb``, ``01_devices (1).ipynb``). The file
  can be older than the open notebook: when one of the last cells this kernel ran is not in the file, it says so.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from gpucourse.handin_cells import as_notebook, normalized, source_of

#: How many of the latest cells run in this kernel must be in the file for it to count as saved.
RECENT = 2


class NotFound(Exception):
    """The notebook could not be read from here: the message says what to do instead."""


@dataclass
class Opened:
    nb: dict
    filename: str
    colab_name: str | None = None  # on Colab: the name it downloads under
    stale: str | None = None  # why the file may be older than the open notebook
    said: list[str] = field(default_factory=list)


def open_notebook(name: str) -> Opened:
    """The notebook ``name`` as saved: on Colab the open one, elsewhere its file (:class:`NotFound` if none)."""
    if "google.colab" in sys.modules:
        return from_colab(name)
    return from_file(name)


def from_colab(name: str) -> Opened:
    try:
        from google.colab import _message

        reply = _message.blocking_request("get_ipynb", request="", timeout_sec=60)
        nb = as_notebook(reply["ipynb"])
    except Exception as exc:  # an old runtime, a timeout: say it, never a traceback
        raise NotFound(f"could not read the open notebook from Colab ({type(exc).__name__}: {exc}): download "
                       "it (File > Download > Download .ipynb) and check it: python -m gpucourse.handin FILE") from None
    colab_name = ((nb.get("metadata") or {}).get("colab") or {}).get("name") or f"{name}.ipynb"
    return Opened(nb, colab_name, colab_name=colab_name,
                  said=[f"Checking the notebook open in Colab (`{colab_name}`), as Colab has saved it."])


def candidates(name: str, folder: Path) -> list[Path]:
    """Files in ``folder`` named like the notebook ``name``, newest first."""
    found = [p for p in folder.glob("*.ipynb") if name in p.name and p.is_file()]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def session_file(namespace: dict | None = None) -> Path | None:
    """The file this kernel was started for, when the front end says so."""
    namespace = namespace if namespace is not None else _user_namespace()
    for value in (namespace.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME"),
                  namespace.get("__session__")):
        if isinstance(value, str) and value.endswith(".ipynb") and Path(value).is_file():
            return Path(value)
    return None


def from_file(name: str, folder: Path | None = None, namespace: dict | None = None,
              recent: list[str] | None = None) -> Opened:
    path = session_file(namespace)
    said = []
    if path is None:
        found = candidates(name, Path(folder or os.getcwd()))
        if not found:
            raise NotFound(f"could not find this notebook's file ({name}.ipynb) in {folder or os.getcwd()}: check "
                           f"the file you will hand in with `python -m gpucourse.handin PATH/{name}.ipynb`")
        path = found[0]
        if len(found) > 1:
            said.append(f"Several files are named like {name}: checking the newest, {path.name} (others: "
                        f"{', '.join(p.name for p in found[1:4])}).")
    try:
        nb = as_notebook(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise NotFound(f"could not read {path}: {exc}") from None
    saved = time.strftime("%H:%M:%S", time.localtime(path.stat().st_mtime))
    said.insert(0, f"Checking the file {path} as saved at {saved} (save first: File > Save Notebook, Ctrl+S).")
    stale = unsaved(nb, recent if recent is not None else recent_inputs())
    return Opened(nb, str(path), stale=stale, said=said)


def unsaved(nb: dict, recent: list[str]) -> str | None:
    """Why the file looks older than the open notebook: a cell this kernel ran lately is not in it."""
    saved = {normalized(source_of(c)) for c in nb["cells"]}
    for source in recent:
        if normalized(source) and normalized(source) not in saved:
            first = next(line for line in source.splitlines() if line.strip()).strip()[:60]
            return ("the open notebook may have changes the file does not have yet (a cell you ran lately, starting "
                    f"`{first}`, is not in it as saved): save it (File > Save Notebook, Ctrl+S) and run this cell "
                    "again, unless you deleted that cell on purpose")
    return None


def recent_inputs(count: int = RECENT) -> list[str]:
    """The last ``count`` distinct cells this kernel ran before the running one (as typed), newest first."""
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    shell = get_ipython()
    if shell is None:
        return []
    raw = list(getattr(shell.history_manager, "input_hist_raw", []))[:-1]  # the last one is this cell
    seen: list[str] = []
    for source in reversed(raw):
        if source.strip() and "check_this_notebook(" not in source and source not in seen:
            seen.append(source)
        if len(seen) == count:
            break
    return seen


def _user_namespace() -> dict:
    try:
        from IPython import get_ipython
    except ImportError:
        return {}
    shell = get_ipython()
    return getattr(shell, "user_ns", {}) if shell is not None else {}
