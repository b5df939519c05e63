"""Build nbgrader source notebooks from Python: cells with correct metadata and stable ids.

Used to write and edit ``solutions/*.ipynb`` (the single source); the notebooks themselves are
what is committed. Every cell gets an explicit, human-readable id so diffs stay stable::

    from graders.authoring import md, code, setup, solution, tests, notebook, save
    save(notebook([md("intro", "# Title"), solution("pick_device", "def pick_device(): ...")]),
         "solutions/01_devices.ipynb")
"""

from __future__ import annotations

import textwrap

import nbformat

from . import nbtools

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


def locked_md(cell_id: str, text: str):
    cell = md(cell_id, text)
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
    nbformat.validate(nb)
    nbtools.write(nbtools.tidy(nb), path)


# ---------------------------------------------------------------------------------------------
# The parts every notebook shares are generated here, never copied by hand (a test checks).
# ---------------------------------------------------------------------------------------------
COURSE_REPO = "gpu-course/module7-mixed-precision"
COURSE_BRANCH = "main"


def colab_url(name: str, repo: str = COURSE_REPO, branch: str = COURSE_BRANCH) -> str:
    return f"https://colab.research.google.com/github/{repo}/blob/{branch}/notebooks/{name}.ipynb"


def badge(name: str) -> str:
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(name)})"


SETUP_SOURCE = '''
# Set-up (read-only). Run it once; it is safe to re-run: it installs only what is missing.
import importlib.util, subprocess, sys
COURSE_REPO, COURSE_BRANCH = "{repo}", "{branch}"
if importlib.util.find_spec("gpucourse") is None:  # Colab: fetch the course's helper package
    subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                    f"gpucourse @ git+https://github.com/{{COURSE_REPO}}@{{COURSE_BRANCH}}"], check=True)

import torch
from gpucourse.env import environment_report, quick_mode

DEVICE = environment_report()  # prints torch version, device, GPU name and compute capability
QUICK = quick_mode()           # True under the autograder and in CI: long demos shrink
'''


def setup_cell(extra_imports: str = "") -> "nbformat.NotebookNode":
    text = SETUP_SOURCE.format(repo=COURSE_REPO, branch=COURSE_BRANCH)
    if extra_imports:
        text = text.rstrip("\n") + "\n\n" + _src(extra_imports) + "\n"
    return setup("setup", text)
