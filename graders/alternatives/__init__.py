"""Correct answers written differently from the reference, as fixture submissions.

They are written in the notebook's source, ``sources/NN_name.py``, as whole answers in the exercise's
author-only fixtures cell (``graders.authoring.fixtures``): other APIs, dtypes, control flow, the
student's own helpers, debug prints, warnings. They are :class:`graders.authoring.fixtures.Alternative`
(they lose nothing): every test must give them full marks, through the static scan, the guard and nbgrader
(``tests/e2e/grading/test_alternatives.py``) and in one kernel (``python -m graders judge``).
"""

from __future__ import annotations

from graders.authoring.fixtures import Alternative

__all__ = ["Alternative", "for_notebook"]


def for_notebook(name: str) -> list[Alternative]:
    """The alternatives the source of notebook ``name`` lists, in source order."""
    from graders.authoring.source import fixture_lists

    return fixture_lists(name)[1]
