"""Notebook cells with correct nbgrader metadata and stable ids, and the parts every notebook shares.

The build (``graders.authoring.source``) makes ``solutions/*.ipynb`` from ``sources/*.py`` with these; the
tests make small notebooks with them::

    from graders.authoring import md, solution, tests, notebook
    nb = notebook([md("intro", "# Title"), solution("double", "def double(x): ..."),
                   tests("test_double", 2, "assert double(2) == 4")])
"""

from __future__ import annotations

import dataclasses
import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat

from graders import nbtools

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def _src(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def _meta(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def md(cell_id: str, text: str):
    return nbformat.v4.new_markdown_cell(_src(text), id=cell_id)


def code(cell_id: str, text: str):
    return nbformat.v4.new_code_cell(_src(text), id=cell_id)


def setup(cell_id: str, text: str):
    """A read-only cell: restored from the source at grading time whatever the student did."""
    cell = code(cell_id, text)
    cell.metadata.update(_meta(cell_id, grade=False, solution=False, locked=True))
    return cell


def solution(cell_id: str, text: str):
    """An autograded answer cell; wrap the answer in ``### BEGIN SOLUTION`` / ``### END SOLUTION``."""
    cell = code(cell_id, text)
    cell.metadata.update(_meta(cell_id, grade=False, solution=True, locked=False))
    return cell


def tests(cell_id: str, points: float, text: str):
    """An autograder test cell (visible part, then ``### BEGIN HIDDEN TESTS`` ...)."""
    cell = code(cell_id, text)
    cell.metadata.update(_meta(cell_id, grade=True, solution=False, locked=True, points=points))
    return cell


def notebook(cells, colab_name: str | None = None):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["accelerator"] = "GPU"
    nb.metadata["colab"] = {"provenance": [], "gpuType": "T4", **({"name": colab_name} if colab_name else {})}
    ids = [c.id for c in nb.cells]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate cell ids: {sorted(duplicates)}")
    return nb


def save(nb, path) -> None:
    """Validate ``nb`` and write it without outputs (benchmarks and tests write small notebooks so)."""
    nbformat.validate(nb)
    nbtools.write(nbtools.tidy(nb), path)


# ---------------------------------------------------------------------------------------------
# The parts every notebook shares are generated here, never copied by hand (a test checks).
# ---------------------------------------------------------------------------------------------
CONFIG_FILE = Path(__file__).resolve().parents[2] / "colab" / "config.json"


@dataclass(frozen=True)
class ColabConfig:
    """Where the course lives on GitHub, from ``colab/config.json``.

    It is the one place that names the repository; ``python -m graders links`` changes it and
    everything built from it (badges, Colab links, the set-up cell's install source). Read it once
    where a command starts (:meth:`load`) and pass it down.
    """

    repo: str
    branch: str
    package_ref: str | None = None  # a tag or commit for the helper package; None: the branch

    @classmethod
    def load(cls, path: Path = CONFIG_FILE) -> ColabConfig:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(data["repo"], data["branch"], data.get("package_ref") or None)

    @property
    def package_label(self) -> str:
        """The ref the helper package is installed from: its own ref, else the branch."""
        return self.package_ref or self.branch


def course_config(path: Path = CONFIG_FILE) -> dict:
    """:class:`ColabConfig` as a dict, ``{"repo", "branch", "package_ref"}``."""
    return dataclasses.asdict(ColabConfig.load(path))


COLAB_BADGE_SVG = "https://colab.research.google.com/assets/colab-badge.svg"


def colab_url(name: str, repo: str | None = None, branch: str | None = None,
              config: ColabConfig | None = None) -> str:
    """The Colab address that opens the student notebook ``notebooks/NAME.ipynb`` from GitHub."""
    if repo is None or branch is None:
        config = config or ColabConfig.load()
    return (f"https://colab.research.google.com/github/{repo or config.repo}/blob/"
            f"{branch or config.branch}/notebooks/{name}.ipynb")


def badge(name: str, repo: str | None = None, branch: str | None = None, config: ColabConfig | None = None) -> str:
    """The "Open in Colab" badge (markdown) for the student notebook ``NAME``."""
    return f"[![Open In Colab]({COLAB_BADGE_SVG})]({colab_url(name, repo, branch, config)})"


def package_source(repo: str | None = None, ref: str | None = None, config: ColabConfig | None = None) -> str:
    """What pip installs the helper package from: ``git+https://github.com/REPO@REF``."""
    if repo is None or ref is None:
        config = config or ColabConfig.load()
    return f"git+https://github.com/{repo or config.repo}@{ref or config.package_label}"


def package_version() -> str:
    """The helper package version these notebooks are written for (``gpucourse.__version__``)."""
    namespace: dict = {}
    init = Path(__file__).resolve().parents[2] / "gpucourse" / "__init__.py"
    exec(compile(init.read_text(encoding="utf-8"), str(init), "exec"), namespace)  # no torch import needed
    return namespace["__version__"]


# The shared first code cell. It must work before the helper package exists (a fresh Colab
# runtime), so it holds the minimal install logic itself; the rest is gpucourse.bootstrap.setup.
SETUP_SOURCE = """
# Set-up (read-only). Safe to re-run: it installs only what is missing and never touches torch.
import importlib, os, subprocess, sys
GPUCOURSE_VERSION = "{version}"  # the version of the course's helper package this notebook needs
GPUCOURSE_SOURCE = "{source}"  # pinned: a tag, not the tip of a branch

def _gpucourse_version():
    try:
        return getattr(importlib.import_module("gpucourse"), "__version__", None)
    except ImportError:
        return None

if _gpucourse_version() != GPUCOURSE_VERSION and os.environ.get("GPUCOURSE_TRIED") != GPUCOURSE_SOURCE:
    print(f"Installing the course's helper package gpucourse {{GPUCOURSE_VERSION}} ...")
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps",
                          f"gpucourse @ {{GPUCOURSE_SOURCE}}"], capture_output=True, text=True)
    if pip.returncode != 0:
        err = pip.stderr
        why = [line.strip() for line in err.splitlines() if "fatal:" in line or "ERROR:" in line]
        if any(s in err for s in {offline}):
            hint = ("This runtime is offline. On Colab: Runtime > Disconnect and delete runtime, reconnect, "
                    "and run this cell again.")
        elif any(s in err for s in {not_found}):
            hint = ("That repository or version does not exist (or is private). Open the notebook from the course's "
                    "start page (colab/README.md), or ask your instructor for the right link.")
        else:
            hint = "Is this runtime online? On Colab, reconnect and run this cell again."
        raise SystemExit(f"Could not install the helper package gpucourse from {{GPUCOURSE_SOURCE}}.\\n{{hint}}\\n"
                         "pip said: " + "\\n".join(why[:3] or err.strip().splitlines()[-1:]))
    os.environ["GPUCOURSE_TRIED"] = GPUCOURSE_SOURCE  # once per session, whatever version it brought
    for _module in [m for m in sys.modules if m.split(".")[0] == "gpucourse"]:
        del sys.modules[_module]  # forget an older copy imported earlier in this session
    importlib.invalidate_caches()

from gpucourse.bootstrap import setup
DEVICE, QUICK = setup(GPUCOURSE_VERSION)  # missing libraries and data, then the environment report
import torch
from gpucourse.checks import needs  # a demonstration that runs your answers waits until they are answered
"""

#: The end of the shared part of the set-up cell, this version's and the first one's; what follows
#: it is the notebook's own.
SETUP_END = (re.compile(r"^DEVICE, QUICK = setup\(.*$(\nimport torch$)?"
                        r"(\nfrom gpucourse\.checks import needs\b.*$)?", re.M),
             re.compile(r"^QUICK\s*=\s*quick_mode\(\).*$", re.M))


def markers(texts: tuple[str, ...], indent: int, width: int = 112) -> str:
    """``texts`` as a Python tuple literal, wrapped to ``width``, continuation lines indented ``indent``."""
    lines, line = [], "("
    for item in map(repr, texts):
        if len(line) > 1 and indent + len(line) + len(item) + 2 > width:
            lines.append(line.rstrip())
            line = ""
        line += item + ", "
    return ("\n" + " " * indent).join(lines + [line[:-2] + ")"])


def setup_source(extra_imports: str = "", config: ColabConfig | None = None) -> str:
    from gpucourse.bootstrap import NOT_FOUND, OFFLINE  # what pip and git say, shared with the package

    text = SETUP_SOURCE.format(version=package_version(), source=package_source(config=config),
                               offline=markers(OFFLINE, 34), not_found=markers(NOT_FOUND, 36)).strip("\n") + "\n"
    if extra_imports and extra_imports.strip():
        text = text.rstrip("\n") + "\n\n" + _src(extra_imports) + "\n"
    return text


def setup_extras(source: str) -> str:
    """The notebook's own lines after the shared part of a set-up cell (any version of it)."""
    for pattern in SETUP_END:
        match = pattern.search(source)
        if match:
            return source[match.end():].strip("\n")
    return ""


def setup_cell(extra_imports: str = "", config: ColabConfig | None = None) -> nbformat.NotebookNode:
    """The shared first code cell (id and grade_id ``setup``), with optional extra lines of the notebook's own."""
    return setup("setup", setup_source(extra_imports, config))
