"""Is the main job's table what the sample submissions must score?

The correct student has full marks, the untouched copy 0 (graded, not failed), and the student with
the common mistakes loses exactly the tests of those exercises. ``scripts/grade_samples.sh`` runs
this after grading, so a newcomer (and CI) reads a verdict, not only a table.
"""

from __future__ import annotations

from pathlib import Path

from graders import nbtools
from graders.authoring import samples
from graders.grading.graded_folder import read_csv
from graders.paths import SOLUTIONS, notebook_names
from graders.qa.selftest import Expectation, compare


def expectations(names: list[str]) -> list[Expectation]:
    expected = []
    for name in names:
        points = nbtools.test_points(nbtools.read(SOLUTIONS / f"{name}.ipynb"))
        lost = frozenset(gid for m in samples.sample_mistakes(name) for gid in m.loses)
        expected += [Expectation("correct", name, sum(points.values())),
                     Expectation("untouched", name, 0.0, frozenset(points)),
                     Expectation("mistakes", name, samples.expected_score(name, samples.sample_mistakes(name)), lost)]
    return expected


def check(out: Path, names: list[str] | None = None) -> tuple[int, list[str]]:
    """How many sample rows are expected, and every one that is not as it must be, as sentences."""
    names = names or notebook_names()
    expected = expectations(names)
    return len(expected), compare(read_csv(Path(out)), expected)


def verdict(expected: int, problems: list[str]) -> list[str]:
    """The lines ``python -m graders samples --check`` prints."""
    head = f"samples: {expected - len(problems)}/{expected} rows as expected"
    head += "; NOT as expected:" if problems else ""
    return [head] + [f"  {problem}" for problem in problems]
