"""Correct answers written differently from the reference, as fixture submissions.

``graders/alternatives/nbNN.py`` (for notebook ``NN_name``) holds ``ALTERNATIVES``: each replaces one
answer cell with another correct answer a student really writes (other APIs, dtypes, control flow,
their own helpers, debug prints, warnings). They are :class:`graders.mistakes.Mistake` with
``loses=()``: every test must give them full marks, through the static scan, the guard and nbgrader
(``tests/test_alternatives.py``). ``python -m graders stress`` runs them in one kernel as well.
"""

from __future__ import annotations

import importlib

from graders.mistakes import Mistake

__all__ = ["Mistake", "for_notebook"]


def for_notebook(name: str) -> list[Mistake]:
    """The alternatives listed for notebook ``name`` (``01_devices`` -> ``graders.alternatives.nb01``)."""
    try:
        module = importlib.import_module(f"{__name__}.nb{name[:2]}")
    except ModuleNotFoundError:
        return []
    return list(module.ALTERNATIVES)
