"""The project's nbgrader settings used from an instructor's own course, by each documented route.

A temporary nbgrader course whose own ``nbgrader_config.py`` loads ours; real nbgrader
(``generate_assignment``, ``autograde``, ``generate_feedback``, each a subprocess) on one notebook
and one student with mistakes: the score is the expected one, and the feedback page shows no line
of the hidden tests (which the graded copy does contain, so there was something to leak).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from graders import nbtools
from graders.authoring import samples
from graders.export import feedback
from graders.paths import COURSE_ID, REPO, SOLUTIONS

NB = "01_devices"
NBGRADER = str(Path(sys.executable).parent / "nbgrader")

ROUTES = {
    "load_subconfig": ("c = get_config()\n"
                       f"load_subconfig({str(REPO / 'graders' / 'nbgrader_config.py')!r})\n"),
    "import": ("import sys\n"
               f"sys.path.insert(0, {str(REPO)!r})\n"
               "from graders.nbgrader_config import configure\n"
               "c = get_config()\n"
               "configure(c)\n"),
}


def _nbgrader(course: Path, *args: str) -> str:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the route itself must make graders importable
    env["HOME"] = str(course.parent / "home")  # no user-level jupyter config leaks in
    done = subprocess.run([NBGRADER, *args], cwd=course, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def test_both_routes_give_the_same_settings(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    configs = {}
    for route, text in ROUTES.items():
        (tmp_path / route).mkdir()
        (tmp_path / route / "nbgrader_config.py").write_text(text)
        configs[route] = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path / route)).load_config()
    assert configs["load_subconfig"] == configs["import"]
    cfg = configs["import"]
    assert cfg.Execute.kernel_name == "python3" and cfg.IgnorePattern.enabled is True
    assert cfg.GenerateFeedback.preprocessors[0].__name__ == "HideHiddenTests"


def test_the_course_folders_config_loads_ours_and_keeps_the_runs_limits(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    from graders import course
    from graders.limits import Limits
    course.write_config(tmp_path, Limits(cell_timeout_s=77))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nbgrader_config.py"]
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert cfg.Execute.timeout == 77  # the limits of the run that wrote it, not of the one reading it
    assert cfg.GenerateFeedback.preprocessors[0].__name__ == "HideHiddenTests"


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_native_nbgrader_in_an_instructors_course(tmp_path, route):
    course = tmp_path / "course"
    (course / "source" / NB).mkdir(parents=True)
    (tmp_path / "home").mkdir()
    shutil.copy(SOLUTIONS / f"{NB}.ipynb", course / "source" / NB / f"{NB}.ipynb")
    (course / "nbgrader_config.py").write_text(ROUTES[route] + "c.CourseDirectory.root = "
                                               f"{str(course)!r}\n")
    mistakes = samples.sample_mistakes(NB)
    assert mistakes, "the sample student should lose points somewhere"
    student = course / "submitted" / "alice" / NB
    student.mkdir(parents=True)
    nbformat.write(samples.with_mistakes(NB, mistakes), str(student / f"{NB}.ipynb"))

    _nbgrader(course, "generate_assignment", NB, "--force")
    _nbgrader(course, "autograde", NB)
    _nbgrader(course, "generate_feedback", NB)

    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        sub = gb.find_submission_notebook(NB, NB, "alice")
        score, max_score = sub.score, sub.max_score
    assert score == pytest.approx(samples.expected_score(NB, mistakes))
    assert score < max_score

    secret = feedback.hidden_lines(nbtools.read(SOLUTIONS / f"{NB}.ipynb"))
    graded = "\n".join(c.source for c in nbtools.read(course / "autograded" / "alice" / NB / f"{NB}.ipynb").cells)
    assert secret and all(line in graded for line in secret), "the graded copy keeps the hidden tests"
    page = (course / "feedback" / "alice" / NB / f"{NB}.html").read_text(encoding="utf-8")
    released = "\n".join(c.source for c in nbtools.read(course / "release" / NB / f"{NB}.ipynb").cells)
    assert feedback.leaks(page, secret, released) == []
    assert "hidden tests ran here" in page
    # the old config imported a grader_limits.py it needed written beside itself
    assert not (REPO / "graders" / "grader_limits.py").exists() and not (course / "grader_limits.py").exists()
