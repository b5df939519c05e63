"""An nbgrader course folder built from solutions/, with one assignment per notebook.

Each notebook is its own assignment (``01_devices/01_devices.ipynb``), so that a student's
file maps to exactly one assignment and one notebook's failure never touches another's.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

from graders.limits import Limits
from graders.paths import COURSE_ID, SOLUTIONS, notebook_names

HERE = Path(__file__).resolve().parent


def jupyter_data_paths() -> list[str]:
    """The ``share/jupyter`` folders of the prefixes this interpreter imports from, which Jupyter does not look in
    by itself: it reads its data (nbconvert's templates, which nbgrader's feedback and the formgrader render with)
    from ``sys.prefix`` and the system's folders only. In a venv over another prefix (a GPU image, a conda base, a
    ``.pth`` file) nbconvert's templates lie beside the other prefix's site-packages, or inside a folder pip
    installed into with ``--target``."""
    found = []
    for entry in sys.path:
        if not (isinstance(entry, str) and os.path.isabs(entry) and entry.endswith(("site-packages", "dist-packages"))):
            continue
        site = Path(entry)
        for share in (site.parents[2] / "share" / "jupyter" if len(site.parents) > 2 else None,
                      site / "share" / "jupyter"):
            if share is not None and share.is_dir() and str(share) not in found:
                found.append(str(share))
    return found


def add_jupyter_data_paths(env: dict | None = None) -> dict:
    """``env`` (by default this process's environment) with :func:`jupyter_data_paths` after its JUPYTER_PATH."""
    env = os.environ if env is None else env
    current = [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    missing = [p for p in jupyter_data_paths() if p not in current]
    if missing:
        env["JUPYTER_PATH"] = os.pathsep.join(current + missing)
    return env


def venv_env() -> dict[str, str]:
    """The environment for nbgrader: our interpreter's bin first on PATH (nbgrader runs ``alembic``), and the Jupyter
    data (nbconvert's templates) of every prefix this interpreter imports from."""
    env = add_jupyter_data_paths(dict(os.environ))
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def gradebook_version() -> str:
    """The schema version nbgrader stamps into a new gradebook: the head of its alembic scripts.

    nbgrader's own ``get_alembic_version`` finds it by running ``alembic heads`` in a new process each time a
    gradebook is created (about 3 s, most of it that Python importing SQLAlchemy again, and ``alembic`` must be
    on PATH). :func:`api` has nbgrader ask this function instead: the same answer, read in this process."""
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR
    return ScriptDirectory(ALEMBIC_DIR).get_current_head()


#: the first line of every config this module writes: a config without it is the instructor's own
MARK = "# written by graders.course"


#: what a course's config says when it cannot find the project's settings, and stops nbgrader: a config that raised
#: an Exception would be logged and skipped (traitlets catches them), and nbgrader would run with its defaults, which
#: put the hidden tests and the grader's guard into the students' feedback; a SystemExit is not an Exception
REFUSAL = ("{config}: the project's nbgrader settings are not here: not at {made_by}",
           "(where the repository that graded this course had them), and the Python running nbgrader",
           "({python}) has no gpucourse installed from a clone of the repository. Without them nbgrader",
           "would run with its defaults and show students the hidden tests and the grader's guard.",
           "Run nbgrader from a clone's venv (`source scripts/setup.sh` there).")


def config_text(limits: Limits) -> str:
    """The course's nbgrader_config.py: the project's settings (loaded by path), with this run's limits.

    The course may be opened anywhere: the settings are looked for where the repository that wrote it keeps them,
    then in the clone whose ``gpucourse`` the Python running nbgrader has installed (``scripts/setup.sh`` installs
    it editable); where neither has them, nbgrader refuses to run (:data:`REFUSAL`)."""
    refusal = "".join(f"        {line + ' '!r}\n" for line in REFUSAL[:-1]) + f"        {REFUSAL[-1]!r}\n"
    return (f"{MARK}: the project's settings, and the limits of the run that made this course\n"
            "import importlib.util\n"
            "import os\n"
            "import sys\n"
            "\n"
            "\n"
            "def _project_settings():  # the first that exists; never a folder an outsider could write a file into\n"
            f"    made_by = {str(HERE / 'nbgrader_config.py')!r}\n"
            "    places = [made_by]\n"
            "    spec = importlib.util.find_spec('gpucourse')\n"
            "    if spec is not None and spec.origin:  # an editable install: <clone>/gpucourse/__init__.py\n"
            "        clone = os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))\n"
            "        places.append(os.path.join(clone, 'graders', 'nbgrader_config.py'))\n"
            "    for place in places:\n"
            "        if os.path.isfile(place):\n"
            "            return place\n"
            "    raise SystemExit((\n"
            f"{refusal}"
            "    ).format(config=__file__, made_by=made_by, python=sys.executable))\n"
            "\n"
            "\n"
            "c = get_config()  # noqa: F821\n"
            "load_subconfig(_project_settings())  # noqa: F821\n"
            f"c.Execute.timeout = {limits.cell_timeout_s!r}\n"
            f"c.LimitOutput.max_lines = {limits.max_output_lines!r}\n")


def write_config(root: Path, limits: Limits | None = None) -> None:
    """The course's config with ``limits`` (default: :meth:`Limits.from_env`)."""
    (root / "nbgrader_config.py").write_text(config_text(limits or Limits.from_env()))


def owns_config(root: Path) -> bool:
    path = Path(root) / "nbgrader_config.py"
    return path.exists() and path.read_text(errors="replace").startswith(MARK)


def ensure(root: Path, names: list[str] | None = None, solutions: Path = SOLUTIONS,
           limits: Limits | None = None) -> list[str]:
    """Make ``root`` an nbgrader course with every assignment in ``names``, keeping what is there.

    Nothing is deleted: a gradebook's students, submissions and manual grades, the instructor's own
    config and files all stay. An assignment whose ``source/`` is missing is added from ``solutions``
    and generated; in a course this module made, one whose solution changed is generated again; in an
    instructor's own course, the instructor's ``source/`` is used as it is. ``limits``: the run's, written
    into a config this module owns (default: :meth:`Limits.from_env`).
    """
    names = names or notebook_names()
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    ours = owns_config(root) or not (root / "nbgrader_config.py").exists()
    if ours:
        write_config(root, limits)  # this run's limits
    for name in names:
        dest = root / "source" / name / f"{name}.ipynb"
        wanted = (solutions / f"{name}.ipynb").read_bytes()
        stale = not dest.exists() or (ours and dest.read_bytes() != wanted)
        if stale:
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(wanted)
        if stale or not (root / "release" / name / f"{name}.ipynb").exists() or not (root / "gradebook.db").exists():
            result = api(root).generate_assignment(name, force=True, create=True)
            if not result["success"]:
                raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{result['log']}\n{result['error']}")
    return names


def released_here(root: Path) -> list[str]:
    """In an instructor's own course, the course's notebooks it holds (the ones to grade); else none."""
    if owns_config(root) or not (Path(root) / "nbgrader_config.py").exists():
        return []
    return [n for n in notebook_names() if (Path(root) / "source" / n / f"{n}.ipynb").exists()]


def create(root: Path, names: list[str] | None = None, solutions: Path = SOLUTIONS) -> list[str]:
    """A new course folder at ``root``, which must not exist or be empty (for scratch courses)."""
    root = Path(root)
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty: use course.ensure to grade into an existing course")
    return ensure(root, names, solutions)


def api(root: Path):
    """An NbGraderAPI bound to ``root`` (configured from the course's nbgrader_config.py)."""
    import nbgrader.api
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    nbgrader.api.get_alembic_version = gradebook_version  # a new gradebook's version without a subprocess
    add_jupyter_data_paths()  # nbconvert's templates, also from a venv over another prefix (feedback renders)
    config = Config()
    loader = PyFileConfigLoader("nbgrader_config.py", path=str(root))
    config.merge(loader.load_config())
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.course_id = COURSE_ID
    with contextlib.redirect_stdout(io.StringIO()):
        coursedir = CourseDirectory(config=config)
        return NbGraderAPI(coursedir, config=config)
