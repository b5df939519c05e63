"""The common mistakes of each graded exercise, as fixture submissions.

They are written in the notebook's source, ``sources/NN_name.py``, as small edits of the reference
answer, in an author-only cell after the exercise's tests (``graders.authoring.fixtures`` reads them).
Each names the test cells it must fail; the tests grade them and assert each loses exactly those
points; the sample student "mistakes" in ``samples/`` carries the ones marked ``sample``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    key: str                 # short name, unique within the notebook
    cell: str                # grade_id of the answer cell it replaces
    source: str              # what the student wrote instead of the reference answer
    loses: tuple[str, ...]   # grade_ids of the test cells that must fail
    why: str = ""            # the misconception, for people reading the fixtures
    sample: bool = False     # part of the sample "mistakes" student
    hidden_only: str = ""    # why no visible check can flag it (hard-coding, for instance); "" = one must

    @property
    def code(self) -> str:
        return textwrap.dedent(self.source).strip("\n") + "\n"


def for_notebook(name: str) -> list[Mistake]:
    """The mistakes the source of notebook ``name`` lists, in source order."""
    from graders.authoring.source import fixture_lists

    return fixture_lists(name)[0]
