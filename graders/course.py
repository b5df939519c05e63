"""An nbgrader course folder built from solutions/, with one assignment per notebook.

Each notebook is its own assignment (``01_devices/01_devices.ipynb``), so that a student's
file maps to exactly one assignment and one notebook's failure never touches another's.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
from pathlib import Path

from . import limits
from .paths import COURSE_ID, SOLUTIONS, notebook_names

HERE = Path(__file__).resolve().parent


def venv_env() -> dict[str, str]:
    """The environment for nbgrader: our interpreter's bin first on PATH (nbgrader runs ``alembic``)."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def write_config(root: Path) -> None:
    """The course's nbgrader_config.py: the project's settings (loaded by path), with this run's limits."""
    (root / "nbgrader_config.py").write_text(
        "# written by graders.course: the project's settings, and the limits of the run that made this course\n"
        "import os\n"
        f"project = {str(HERE / 'nbgrader_config.py')!r}\n"
        "if not os.path.isfile(project):  # load_subconfig would ignore a missing file without a word\n"
        "    raise FileNotFoundError(project)\n"
        "c = get_config()  # noqa: F821\n"
        "load_subconfig(project)  # noqa: F821\n"
        f"c.Execute.timeout = {limits.CELL_TIMEOUT_S!r}\n"
        f"c.LimitOutput.max_lines = {limits.MAX_OUTPUT_LINES!r}\n")


def create(root: Path, names: list[str] | None = None, solutions: Path = SOLUTIONS) -> list[str]:
    """Make a fresh course folder at ``root`` and generate every assignment into its gradebook."""
    names = names or notebook_names()
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    write_config(root)
    for name in names:
        dest = root / "source" / name
        dest.mkdir(parents=True)
        shutil.copy(solutions / f"{name}.ipynb", dest / f"{name}.ipynb")
    os.environ["PATH"] = venv_env()["PATH"]
    for name in names:
        result = api(root).generate_assignment(name, force=True, create=True)
        if not result["success"]:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{result['log']}\n{result['error']}")
    return names


def api(root: Path):
    """An NbGraderAPI bound to ``root`` (configured from the course's nbgrader_config.py)."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = Config()
    loader = PyFileConfigLoader("nbgrader_config.py", path=str(root))
    config.merge(loader.load_config())
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.course_id = COURSE_ID
    with contextlib.redirect_stdout(io.StringIO()):
        coursedir = CourseDirectory(config=config)
        return NbGraderAPI(coursedir, config=config)
