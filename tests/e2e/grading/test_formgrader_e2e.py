"""The graded course where the instructor opens it (issue 33, deliverable 7): copied away from the repository, as if
graded on another machine, and looked at in nbgrader's formgrader through a real browser.

The samples graded once for the run (tests/e2e/grading/conftest.py) are copied into a folder outside the repository,
and their ``nbgrader_config.py`` made to name a clone that is not on this machine. There:

- ``nbgrader generate_feedback`` (the nbgrader of this repository's venv) writes no hidden test and no guard code;
  an nbgrader that cannot reach the project's settings at all refuses to run, instead of running with its defaults;
- ``cd COURSE && jupyter lab`` (README, docs/grading.md): the formgrader's grading view, drawn by headless Chromium,
  shows each of the grader's guard cells as one line (not the ~960-line install cell before the student's first
  answer), the scores and one score box per test cell; a manual grade typed in goes into the gradebook; and
  *Generate Feedback* there hides the hidden tests and the guard.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders import nbtools
from graders.export import feedback
from graders.grading import guard_cells
from graders.paths import COURSE_ID, REPO, SOLUTIONS
from tests.e2e.grading.conftest import QUICK_NOTEBOOK
from tests.helpers import browser, jupyter_server

NB = QUICK_NOTEBOOK
#: where the clone that graded the course was, on its machine: not on this one
ELSEWHERE = "/nowhere/the-clone-that-graded"
#: what only the guard's code has (its marker line, the function the install cell calls)
GUARD_CODE = (guard_cells.MARK, "_grader_guard_install")


def moved_course(samples_graded, tmp_path: Path) -> Path:
    out, _ = samples_graded
    dest = tmp_path / "elsewhere" / "course"
    shutil.copytree(out / "course", dest)
    assert not dest.resolve().is_relative_to(REPO), "the copy must not sit inside the repository"
    config = dest / "nbgrader_config.py"
    text = config.read_text()
    assert str(REPO) in text, "the course's config names the repository that graded it"
    config.write_text(text.replace(str(REPO), ELSEWHERE))
    return dest


def environment(tmp_path: Path) -> dict:
    env = dict(os.environ, HOME=str(tmp_path / "home"))  # no user-level jupyter config leaks in
    env.pop("PYTHONPATH", None)  # the course's config must find graders itself
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


def assert_pages_hide_tests_and_guard(course: Path, students: list[str]) -> None:
    secret = feedback.hidden_lines(nbtools.read(SOLUTIONS / f"{NB}.ipynb"))
    released = "\n".join(c.source for c in nbtools.read(course / "release" / NB / f"{NB}.ipynb").cells)
    for student in students:
        page = (course / "feedback" / student / NB / f"{NB}.html").read_text(encoding="utf-8")
        # what the student may see anyway, as graders/export/feedback.py counts it: the released notebook and their
        # own cells (04's correct answer writes a line a hidden test also has: `with torch.autocast(...)`)
        own = nbtools.read(course / "autograded" / student / NB / f"{NB}.ipynb").cells
        shown = released + "\n" + "\n".join(c.source for c in own if not nbtools.is_test_cell(c))
        assert feedback.leaks(page, secret, shown) == [], f"{student}'s feedback shows hidden tests"
        assert not [code for code in GUARD_CODE if code in html.unescape(page)], f"{student}'s feedback shows the guard"
        assert "hidden tests ran here" in page


def students(samples_graded) -> list[str]:
    return sorted({row.student_id for row in samples_graded[1] if row.notebook == NB})


def test_generate_feedback_in_a_course_copied_from_another_machine_hides_the_tests_and_the_guard(samples_graded,
                                                                                                tmp_path):
    course = moved_course(samples_graded, tmp_path)
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "generate_feedback", NB], cwd=course,
                          env=environment(tmp_path), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_pages_hide_tests_and_guard(course, students(samples_graded))
    assert "Exception while loading config file" not in done.stderr, done.stderr[-3000:]


def test_an_nbgrader_that_cannot_reach_the_settings_refuses_to_run(samples_graded, tmp_path):
    """No clone at the path the config names, and none installed in the Python running nbgrader (gpucourse hidden
    from it): nbgrader stops with the config's message, and writes no feedback."""
    course = moved_course(samples_graded, tmp_path)
    hide = ("import sys; sys.modules['gpucourse'] = None; sys.argv[0] = 'nbgrader'; "
            "from nbgrader.apps.nbgraderapp import main; main()")
    done = subprocess.run([sys.executable, "-c", hide, "generate_feedback", NB], cwd=course,
                          env=environment(tmp_path), capture_output=True, text=True, timeout=600)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "the project's nbgrader settings are not here" in done.stderr and ELSEWHERE in done.stderr
    assert not (course / "feedback").exists()


CELL = re.compile(r'<div class="cell border-box-sizing (?:code|text)_cell[^"]*"(?: id="cell-id=([^"]*)")?')


def shown_cells(page: str) -> list[tuple[str | None, list[str]]]:
    """(cell id, the lines of its code as shown) of every cell of a formgrader page, in order."""
    starts = list(CELL.finditer(page))
    cells = []
    for i, start in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(page)
        code = re.search(r'<div class="input_area">(.*?)</pre>', page[start.end():end], re.S)
        text = html.unescape(re.sub(r"<[^>]+>", "", code.group(1))) if code else ""
        cells.append((start.group(1), text.strip("\n").splitlines()))
    return cells


@pytest.fixture(scope="module")
def formgrader(samples_graded, tmp_path_factory):
    """``cd COURSE && jupyter lab`` in the moved course, as README says; the server, the course and the graded rows."""
    if browser.chromium() is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install -y chromium); .ci/run installs it")
    tmp = tmp_path_factory.mktemp("formgrader")
    course = moved_course(samples_graded, tmp)
    with jupyter_server.running("lab", course, tmp, env=environment(tmp)) as server:
        yield server, course, tmp


def submission_id(course: Path, student: str) -> str:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        return gb.find_submission_notebook(NB, NB, student).id


def test_the_grading_view_opens_with_the_students_notebook_not_the_guard(formgrader, samples_graded):
    server, course, tmp = formgrader
    student = "mistakes"
    view = server.url(f"/formgrader/submissions/{submission_id(course, student)}/")
    shot = browser.screenshot(browser.chromium(), view, tmp / "grading-view.png")
    print(f"the grading view, as drawn: {shot}")
    page = browser.dom(browser.chromium(), view, tmp)

    graded = nbtools.read(course / "autograded" / student / NB / f"{NB}.ipynb")
    guards = {c.id for c in graded.cells if c.metadata.get("grader_guard")}
    cells = shown_cells(page)
    code = [(cid, lines) for cid, lines in cells if lines]
    assert code, "no code cell in the grading view"
    first_id, first_lines = code[0]
    assert first_id not in guards or len(first_lines) <= 1, \
        f"the view opens with a {len(first_lines)}-line guard cell ({shot})"
    too_long = {cid: len(lines) for cid, lines in cells if cid in guards and len(lines) > 1}
    assert not too_long, f"guard cells shown in full: {too_long} ({shot})"
    assert "_grader_guard_install" not in page
    # the student's answers and every test cell's score box are there, in the notebook's order
    answers = [c.id for c in graded.cells if nbtools.nbgrader_meta(c).get("solution")]
    shown_ids = [cid for cid, _ in cells]
    assert answers and all(a in shown_ids for a in answers)
    assert page.count('class="score tabbable"') == len(nbtools.test_points(graded))


def test_scores_and_a_manual_grade_in_the_formgrader(formgrader, samples_graded):
    server, course, _ = formgrader
    student = "mistakes"
    row = next(r for r in samples_graded[1] if (r.student_id, r.notebook) == (student, NB))
    _, body = server.request(f"/formgrader/api/grades?submission_id={submission_id(course, student)}")
    grades = json.loads(body)
    assert sum(g["auto_score"] for g in grades) == pytest.approx(row.score), "the scores grades.csv has"
    lost = next(g for g in grades if g["auto_score"] < g["max_score"])
    server.request(f"/formgrader/api/grade/{lost['id']}", "PUT",
                   json.dumps({"manual_score": lost["max_score"] / 2}).encode())

    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        assert gb.find_grade(lost["name"], NB, NB, student).manual_score == lost["max_score"] / 2


def test_generate_feedback_in_the_formgrader_hides_the_tests_and_the_guard(formgrader, samples_graded):
    server, course, _ = formgrader
    _, body = server.request(f"/formgrader/api/assignment/{NB}/generate_feedback", "POST", b"{}", timeout=600)
    result = json.loads(body)
    assert result["success"], result.get("error", "")[-3000:]
    assert_pages_hide_tests_and_guard(course, students(samples_graded))
