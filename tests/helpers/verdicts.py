"""The judge's run of every notebook (``graders.qa.judge.judge_notebook``), once a session, for the tests of
the in-process tier (tests/judge/) that read it."""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing

from graders.paths import notebook_names
from graders.qa.judge import Verdict, judge_notebook


@functools.cache
def every_verdict() -> dict[str, tuple[Verdict, ...]]:
    """One judge run per notebook, shared by the tests that read it; two at a time (each in a process and a
    kernel of its own: most of a judge's time is its kernel's, and much of that the simulated device's sleeps)."""
    names = sorted(notebook_names(), key=lambda n: n not in ("03_async_timing", "07_compile"))  # longest first
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip(names, map(tuple, pool.map(judge_notebook, names)), strict=True))


def verdicts(name: str) -> tuple[Verdict, ...]:
    return every_verdict()[name]
