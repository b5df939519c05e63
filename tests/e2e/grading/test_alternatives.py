"""Correct answers written differently from the reference (graders/alternatives) score full marks,
graded both ways an instructor may grade: ``python -m graders autograde`` (intake, static scan,
guard, nbgrader) and plain ``nbgrader autograde`` in a course folder with the project's config.

Alternatives of different answer cells share a submission (``selftest.pack``), so each notebook
costs about three submissions. Both ways grade the first of each notebook, a representative set: the score of
every alternative, test cell by test cell, is checked in one kernel by tests/judge/test_judge.py, and the static
scan of every one by tests/unit/grading/test_tamper_scan.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from graders import course, nbtools
from graders.alternatives import for_notebook
from graders.authoring import samples
from graders.grading.autograde import autograde
from graders.paths import COURSE_ID, SOLUTIONS, notebook_names
from graders.qa.selftest import pack

NAMES = notebook_names()


def write_submissions(folder: Path) -> dict[tuple[str, str], list[str]]:
    """``folder/<student>/<notebook>.ipynb`` for every group of alternatives; ``{(student, notebook): keys}``."""
    cases = {}
    for name in NAMES:
        for index, group in enumerate(pack(for_notebook(name))):
            student = f"alt-{name[:2]}-{index + 1}"
            nbtools.write(nbtools.tidy(samples.with_mistakes(name, group)), folder / student / f"{name}.ipynb")
            cases[(student, name)] = [a.key for a in group]
    return cases


def full_marks(name: str) -> dict[str, float]:
    return nbtools.test_points(nbtools.read(SOLUTIONS / f"{name}.ipynb"))


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    folder = tmp_path_factory.mktemp("alternatives") / "submissions"
    return folder, write_submissions(folder)


def test_corpus_has_three_per_exercise():
    for name in NAMES:
        answers = [nbtools.grade_id(c) for c in nbtools.read(SOLUTIONS / f"{name}.ipynb").cells
                   if nbtools.is_solution_cell(c)]
        alternatives = for_notebook(name)
        assert all(not a.loses for a in alternatives), f"{name}: an alternative that loses points is a mistake"
        assert len({a.key for a in alternatives}) == len(alternatives), f"{name}: keys must be unique"
        for gid in answers:
            assert sum(a.cell == gid for a in alternatives) >= 3, f"{name}: fewer than 3 alternatives for {gid}"


def first_rounds(cases: dict) -> dict:
    """The first packed submission of each notebook."""
    chosen = {(student, name): keys for (student, name), keys in cases.items() if student.endswith("-1")}
    assert len(chosen) == len(NAMES)
    return chosen


def test_autograde_gives_full_marks(submissions, tmp_path):
    folder, every = submissions
    cases = first_rounds(every)
    rows = autograde(folder, tmp_path / "graded", names=NAMES, jobs=2, progress=False,
                     students=sorted({student for student, _ in cases}))
    by_key = {(r.student_id, r.notebook): r for r in rows}
    problems = []
    for (student, name), keys in cases.items():
        row = by_key.get((student, name))
        points = full_marks(name)
        if row is None or row.status != "graded" or row.score != sum(points.values()):
            problems.append(f"{student}/{name} {keys}: {row.status if row else 'no row'} "
                            f"{row.score if row else ''} ({row.message if row else ''})")
            continue
        lost = [gid for gid, (score, mx) in row.cells.items() if score != mx]
        if lost:
            problems.append(f"{student}/{name} {keys}: lost {lost}")
    assert not problems, "\n".join(problems)


def test_plain_nbgrader_gives_full_marks(submissions, tmp_path):
    from nbgrader.api import Gradebook

    folder, every = submissions
    cases = first_rounds(every)
    root = tmp_path / "course"
    course.create(root, NAMES)
    for (student, name) in cases:
        dest = root / "submitted" / student / name
        dest.mkdir(parents=True)
        (dest / f"{name}.ipynb").write_bytes((folder / student / f"{name}.ipynb").read_bytes())
    logs = {}
    for name in NAMES:  # one nbgrader run per notebook grades all of its submissions
        done = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", name, "--force"], cwd=root,
                              env=course.venv_env(), capture_output=True, text=True, timeout=1800)
        logs[name] = done.stdout[-3000:] + done.stderr[-3000:]
    problems = []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
        for (student, name), keys in cases.items():
            try:
                nb = gradebook.find_submission_notebook(name, name, student)
            except Exception as error:
                problems.append(f"{student}/{name} {keys}: not graded ({error}); log: {logs[name][-800:]}")
                continue
            lost = [g.name for g in nb.grades if g.max_score and g.score != g.max_score]
            if nb.score != sum(full_marks(name).values()) or lost:
                problems.append(f"{student}/{name} {keys}: {nb.score}/{nb.max_score}, lost {lost}")
    assert not problems, "\n".join(problems)
