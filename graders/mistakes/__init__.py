"""The common mistakes of each graded exercise, as fixture submissions.

They are written in the notebook's source, ``sources/NN_name.py``, as small edits of the reference
answer, in an author-only cell after the exercise's tests (``graders.authoring.fixtures`` reads them).
Each names the test cells it must fail; the tests grade them and assert each loses exactly those
points; the sample student "mistakes" in ``samples/`` carries the ones marked ``sample``.
"""

from __future__ import annotations

from graders.authoring.fixtures import Mistake

__all__ = ["Mistake", "for_notebook"]


def for_notebook(name: str) -> list[Mistake]:
    """The mistakes the source of notebook ``name`` lists, in source order."""
    from graders.authoring.source import fixture_lists

    return fixture_lists(name)[0]
