"""Issue 35: the answers written from the student notebooks' docstrings alone (tests/data/docstring_answers/), graded
by ``python -m graders judge --answers``'s runner, one kernel per notebook: every correct answer keeps full marks, and
every wrong answer loses points under the tests as graded (a wrong one that keeps them marks a sentence the hidden
tests miss). Which share the visible checks flag is printed (``-rP`` shows it, under xdist too), not asserted per
file: that is the figure the issue reports, and a wrong answer no visible check flags still loses its points here.

A file its author misread (``verdicts.toml``) is judged as its other kind."""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing

import pytest

from graders.qa.docstring_answers import ANSWERS, Tally, judge_answers, read_answers, read_misreads

NOTEBOOKS = sorted(read_answers())


def _judge(name: str):
    return judge_answers(name, read_answers(notebooks=[name])[name], read_misreads())


@functools.cache
def outcomes() -> dict:
    """``{notebook: (outcomes, what went wrong with the reference)}``, once a session: two notebooks at a time, each
    in a process and a kernel of its own (as tests/helpers/verdicts.py runs the judge)."""
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip(NOTEBOOKS, pool.map(_judge, NOTEBOOKS), strict=True))


def test_there_are_answers_to_judge():
    assert NOTEBOOKS, f"no answer files in {ANSWERS}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_reference_keeps_full_marks_around_them(name):
    _, broken = outcomes()[name]
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_correct_answer_keeps_full_marks(name):
    mine, _ = outcomes()[name]
    losing = [o.problem() for o in mine if o.counts_as == "correct" and o.problem()]
    assert not losing, "\n".join(losing)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_wrong_answer_loses_points(name):
    mine, _ = outcomes()[name]
    assert any(o.counts_as == "wrong" for o in mine)
    kept = [o.problem() for o in mine if o.counts_as == "wrong" and o.problem()]
    assert not kept, "\n".join(kept)


def test_the_share_the_visible_checks_flag_is_reported():
    judged = [o for name in NOTEBOOKS for o in outcomes()[name][0]]
    tallies = [Tally.of(name, outcomes()[name][0]) for name in NOTEBOOKS] + [Tally.of("in all", judged)]
    print("\n" + Tally.header() + "\n" + "\n".join(t.row() for t in tallies))
    unseen = [o.answer.path for o in judged if o.counts_as == "wrong" and not o.flagged_by]
    print("wrong answers the visible checks do not flag:\n  " + ("\n  ".join(unseen) or "none"))
    every = tallies[-1]
    assert every.wrong + every.correct == len(judged) and every.flagged == every.wrong - len(unseen)
