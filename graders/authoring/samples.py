"""Submissions made from the sources: a correct student, an untouched copy, and the mistakes.

They start from the *student* notebook (what a student downloads), so they look like what
students hand in; answers come from the reference solution or from ``graders.mistakes``.
"""

from __future__ import annotations

from pathlib import Path

from graders import nbtools
from graders.authoring import source
from graders.mistakes import Mistake, for_notebook
from graders.paths import NOTEBOOKS, SOLUTIONS, notebook_names


def reference_answers(name: str) -> dict[str, str]:
    """``{answer cell grade_id: the reference answer without solution markers}``."""
    return source.reference_answers(nbtools.read(SOLUTIONS / f"{name}.ipynb"))


def submission(name: str, answers: dict[str, str] | None = None):
    """The student notebook of ``name`` with the given answer cells filled in (None: untouched)."""
    nb = nbtools.read(NOTEBOOKS / f"{name}.ipynb")
    for cell in nb.cells:
        gid = nbtools.grade_id(cell)
        if answers and nbtools.is_solution_cell(cell) and gid in answers:
            cell.source = answers[gid]
    return nb


def with_mistakes(name: str, mistakes: list[Mistake]):
    answers = reference_answers(name)
    for mistake in mistakes:
        answers[mistake.cell] = mistake.code
    return submission(name, answers)


def expected_score(name: str, mistakes: list[Mistake]) -> float:
    points = nbtools.test_points(nbtools.read(SOLUTIONS / f"{name}.ipynb"))
    lost = {gid for m in mistakes for gid in m.loses}
    return sum(p for gid, p in points.items() if gid not in lost)


def sample_mistakes(name: str) -> list[Mistake]:
    """The sample student's mistakes: one per answer cell, in every other answer cell, from those
    marked ``sample=True``; so the table shows points lost on some exercises and kept on others."""
    answers = [nbtools.grade_id(c) for c in nbtools.read(SOLUTIONS / f"{name}.ipynb").cells
               if nbtools.is_solution_cell(c)]
    wrong = set(answers[::2])
    chosen: dict[str, Mistake] = {}
    for mistake in for_notebook(name):
        if mistake.sample and mistake.cell in wrong and mistake.cell not in chosen:
            chosen[mistake.cell] = mistake
    return list(chosen.values())


def write_samples(out: Path) -> list[Path]:
    """Write ``out/{correct,untouched,mistakes}/NN_name.ipynb`` for every notebook."""
    written = []
    for name in notebook_names():
        for student, nb in [("correct", submission(name, reference_answers(name))),
                            ("untouched", submission(name)),
                            ("mistakes", with_mistakes(name, sample_mistakes(name)))]:
            path = Path(out) / student / f"{name}.ipynb"
            nbtools.write(nbtools.tidy(nb), path)
            written.append(path)
    return written
