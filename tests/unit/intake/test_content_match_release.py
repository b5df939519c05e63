"""A file renamed beyond recognition is matched by content against the release of the course being graded.

An instructor's own course may release its own version of a notebook; comparing hand-ins with the
repository's ``notebooks/`` would then match them to the wrong notebook, or to none.
"""

from __future__ import annotations

from graders import nbtools
from graders.authoring.samples import reference_answers, submission
from graders.intake import student_files as intake
from graders.paths import NOTEBOOKS

NAME, OTHER = "01_devices", "02_transfers"


def released_as(course, name, nb):
    """``course``'s release of ``name`` is ``nb`` (nbgrader's ``release/NAME/NAME.ipynb``)."""
    nbtools.write(nb, course / "release" / name / f"{name}.ipynb")


def test_content_is_compared_with_the_course_release(tmp_path):
    # the course releases OTHER's cells under NAME: a hand-in of those cells is NAME in this course
    course, folder = tmp_path / "course", tmp_path / "student"
    released_as(course, NAME, nbtools.read(NOTEBOOKS / f"{OTHER}.ipynb"))
    nbtools.write(submission(OTHER, reference_answers(OTHER)), folder / "Untitled3.ipynb")

    in_course = intake.intake_student(folder, [NAME], course=course)[NAME]
    assert in_course.problem is None and "Untitled3.ipynb" in in_course.notes[0]
    # against notebooks/ (the old reading) the same file is no copy of NAME
    assert intake.intake_student(folder, [NAME])[NAME].problem.startswith("notebook missing")


def test_the_course_release_decides_a_file_that_notebooks_would_match(tmp_path):
    # a copy of notebooks/NAME, in a course whose NAME is something else: not NAME there
    course, folder = tmp_path / "course", tmp_path / "student"
    released_as(course, NAME, nbtools.read(NOTEBOOKS / f"{OTHER}.ipynb"))
    nbtools.write(submission(NAME, reference_answers(NAME)), folder / "Untitled3.ipynb")
    assert intake.intake_student(folder, [NAME], course=course)[NAME].problem.startswith("notebook missing")
    assert intake.intake_student(folder, [NAME])[NAME].problem is None


def test_without_a_course_release_notebooks_is_read(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "student"
    course.mkdir()  # a course folder collect files into before anything is released
    nbtools.write(submission(NAME, reference_answers(NAME)), folder / "Untitled3.ipynb")
    item = intake.intake_student(folder, [NAME, OTHER], course=course)
    assert item[NAME].problem is None and item[OTHER].problem.startswith("notebook missing")
    assert intake.release_notebook(NAME, course) == nbtools.read(NOTEBOOKS / f"{NAME}.ipynb")
