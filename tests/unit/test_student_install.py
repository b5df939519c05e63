"""A student's install off Colab (requirements-student.txt): what the notebooks and their hand-in check import, with
requirements.txt's bounds, and not nbgrader (its JupyterLab extension shows the instructor's menus)."""

from __future__ import annotations

import re

from graders.paths import REPO


def requirements(name: str) -> dict[str, str]:
    found = {}
    for line in (REPO / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            package, spec = re.match(r"([A-Za-z0-9_.-]+)(.*)", line).groups()
            found[package.lower()] = spec.strip()
    return found


def test_a_students_install_has_no_instructor_side():
    student = requirements("requirements-student.txt")
    assert not {"nbgrader", "pytest", "pytest-xdist", "ruff", "jupytext"} & set(student)
    assert "-e ." in (REPO / "requirements-student.txt").read_text(encoding="utf-8").splitlines()


def test_a_students_install_has_what_the_notebooks_and_the_hand_in_check_need_with_the_same_bounds():
    student, full = requirements("requirements-student.txt"), requirements("requirements.txt")
    needed = {"torch", "torchvision", "numpy", "matplotlib", "tqdm", "hypothesis", "ipywidgets", "jupyterlab",
              "nbclient", "nbformat", "ipykernel"}
    assert needed <= set(student)
    assert {name: student[name] for name in student} == {name: full[name] for name in student}
