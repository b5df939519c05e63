"""The judge's run of every notebook (``graders.qa.judge.judge_notebook``), once a session, for the tests of
the in-process tier (tests/judge/) that read it.

One run per notebook judges the catalogued fixtures and every set of answers written from the docstrings alone
(``graders.qa.docstring_answers``: ``ANSWERS``, ``FRESH``, ``THIRD`` and ``DOMAIN``) in the same kernel: starting a
notebook's kernel (the solution run top to bottom) is most of a small judge run's cost, so CI pays it once."""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing
from pathlib import Path

from graders.paths import notebook_names
from graders.qa.docstring_answers import (
    ANSWERS,
    DOMAIN,
    FRESH,
    THIRD,
    Outcome,
    outcomes_of,
    read_answers,
    read_misreads,
)
from graders.qa.judge import Verdict, fixtures_for, judge_notebook

#: the folders of answers written from the docstrings alone; a fixture of theirs is keyed "<folder>:<cell>/<file>"
ANSWER_SETS = tuple(root for root in (ANSWERS, FRESH, THIRD, DOMAIN) if root.is_dir())


def _prefix(root: Path) -> str:
    return f"{root.name}:"


def _judge(name: str) -> tuple[Verdict, ...]:
    extra = [a.fixture(_prefix(root)) for root in ANSWER_SETS for a in read_answers(root, [name]).get(name, [])]
    return tuple(judge_notebook(name, fixtures=fixtures_for(name) + extra))


def judge_every_notebook() -> dict[str, tuple[Verdict, ...]]:
    """One judge run per notebook; two at a time (each in a process and a kernel of its own: most of a judge's
    time is its kernel's, and much of that the simulated device's sleeps)."""
    # longest first (measured: fixtures and docstring answers), so that the two processes end together: with 08 last,
    # one process judged it alone for 12 minutes while every test worker waited (fresh-clone CI, 2026-12-07)
    longest = ("07_compile", "01_devices", "08_throughput", "03_async_timing", "05_gradscaler")
    names = sorted(notebook_names(), key=lambda n: longest.index(n) if n in longest else len(longest))
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip(names, pool.map(_judge, names), strict=True))


_shared: dict[str, tuple[Verdict, ...]] | None = None


def share(judged: dict[str, tuple[Verdict, ...]]) -> None:
    """Use ``judged`` (the run another pytest-xdist worker made: tests/judge/conftest.py) instead of judging again."""
    global _shared
    _shared = judged


@functools.cache
def every_verdict() -> dict[str, tuple[Verdict, ...]]:
    """The judge's verdicts for every notebook, shared by the tests that read them: the run shared with
    :func:`share`, else one made here (once a process)."""
    return _shared if _shared is not None else judge_every_notebook()


def verdicts(name: str) -> tuple[Verdict, ...]:
    """The reference's and the catalogued fixtures' verdicts (not the docstring answers')."""
    return tuple(v for v in every_verdict()[name] if not v.key.startswith(tuple(map(_prefix, ANSWER_SETS))))


def answer_outcomes(root: Path, name: str) -> list[Outcome]:
    """How the judge treated each answer of ``root`` (a folder of ``ANSWER_SETS``) for notebook ``name``."""
    answers = read_answers(root, [name]).get(name, [])
    return outcomes_of(answers, every_verdict()[name], read_misreads(root), _prefix(root))
