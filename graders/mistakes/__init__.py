"""The common mistakes of each graded exercise, as fixture submissions.

``graders/mistakes/nbNN.py`` (for notebook ``NN_name``) holds ``MISTAKES``: each replaces one
answer cell with a wrong answer a student really writes, and names the test cells it must fail.
The tests grade every one with real nbgrader and assert it loses exactly those points; the
sample student "mistakes" in ``samples/`` carries the ones marked ``sample=True``.
"""

from __future__ import annotations

import importlib
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

    @property
    def code(self) -> str:
        return textwrap.dedent(self.source).strip("\n") + "\n"


def for_notebook(name: str) -> list[Mistake]:
    """The mistakes listed for notebook ``name`` (``01_devices`` -> ``graders.mistakes.nb01``)."""
    try:
        module = importlib.import_module(f"{__name__}.nb{name[:2]}")
    except ModuleNotFoundError:
        return []
    return list(module.MISTAKES)
