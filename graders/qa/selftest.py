"""``python -m graders selftest [NAMES]``: grade the reference, the untouched copy and every
listed mistake with real nbgrader, and compare each score with what it must be.

The test suite runs the same check; instructors can run it after editing a notebook.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from graders import nbtools
from graders.authoring import samples
from graders.grading.autograde import autograde
from graders.grading.row import Row
from graders.mistakes import for_notebook
from graders.paths import SOLUTIONS, notebook_names


@dataclass
class Expectation:
    student: str
    notebook: str
    score: float
    lost: frozenset = frozenset()  # test grade_ids that must score 0; every other test full marks
    mistakes: tuple = ()  # keys of the listed mistakes this submission carries


def pack(mistakes: list) -> list[list]:
    """Group mistakes so that no two in a group touch the same answer cell or the same test.

    Each group becomes one submission: its tests are checked cell by cell, so every mistake still
    has to lose its own tests and leave the rest at full marks, at a fraction of the grading runs.
    """
    groups: list[list] = []
    for mistake in mistakes:
        for group in groups:
            if all(m.cell != mistake.cell and not set(m.loses) & set(mistake.loses) for m in group):
                group.append(mistake)
                break
        else:
            groups.append([mistake])
    return groups


def make_submissions(folder: Path, names: list[str], rounds: int | None = None) -> list[Expectation]:
    """Write one student per case into ``folder``; return what each must score.

    ``rounds`` keeps only that many packed mistake submissions per notebook (the test suite grades one
    end to end; ``python -m graders judge`` runs every mistake in one kernel).
    """
    if folder.exists():
        shutil.rmtree(folder)
    expected = []
    for name in names:
        points = nbtools.test_points(nbtools.read(SOLUTIONS / f"{name}.ipynb"))
        cases = [("solution", nbtools.read(SOLUTIONS / f"{name}.ipynb"), frozenset(), ()),
                 ("correct", samples.submission(name, samples.reference_answers(name)), frozenset(), ()),
                 ("untouched", samples.submission(name), frozenset(points), ())]
        for index, group in enumerate(pack(for_notebook(name))[:rounds]):
            student = f"m-{name[:2]}-{group[0].key}" if len(group) == 1 else f"m-{name[:2]}-round{index + 1}"
            cases.append((student, samples.with_mistakes(name, group),
                          frozenset(gid for m in group for gid in m.loses), tuple(m.key for m in group)))
        for student, nb, lost, keys in cases:
            nbtools.write(nbtools.tidy(nb), folder / student / f"{name}.ipynb")
            score = sum(p for gid, p in points.items() if gid not in lost)
            expected.append(Expectation(student, name, score, lost, keys))
    return expected


def compare(rows: list[Row], expected: list[Expectation]) -> list[str]:
    """Every disagreement between the graded rows and the expectations, as sentences."""
    by_key = {(r.student_id, r.notebook): r for r in rows}
    problems = []
    for exp in expected:
        row = by_key.get((exp.student, exp.notebook))
        if row is not None and row.status == "review":
            # the course's own answers and mistakes are written in good faith: a finding is a false alarm
            problems.append(f"{exp.student}/{exp.notebook}: flagged for review ({row.message})")
            continue
        if row is None or row.status != "graded":
            problems.append(f"{exp.student}/{exp.notebook}: not graded ({row.message if row else 'no row'})")
            continue
        wrong = [gid for gid, (score, mx) in row.cells.items() if (score != 0) == (gid in exp.lost)
                 and gid.startswith("test_")]
        if row.score != exp.score or wrong:
            problems.append(f"{exp.student}/{exp.notebook}: scored {row.score:g}, expected {exp.score:g}; "
                            f"cells not as expected: {wrong}")
    return problems


def selftest(names: list[str] | None, out: Path, jobs: int = 1) -> list[str]:
    names = names or notebook_names()
    expected = make_submissions(out / "submissions", names)
    rows = autograde(out / "submissions", out / "graded", names=names, jobs=jobs)
    # Students hold only some notebooks; a missing notebook row is expected and not compared.
    return compare(rows, expected)
