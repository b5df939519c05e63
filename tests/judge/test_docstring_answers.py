"""Issue 35: the answers written from the student notebooks' docstrings alone: ``tests/data/docstring_answers/``
and two more sets, each by another author who had seen neither the tests nor the earlier sets
(``docstring_answers_fresh/``, ``docstring_answers_third/``), and the neighbours one input away written over each
docstring's whole domain (``docstring_answers_domain/``, issue 40), judged in the same kernel run as the catalogued
fixtures (tests/helpers/verdicts.py): every correct answer keeps full marks, and every wrong answer loses points
under the tests as graded and is caught by the hidden tests alone (a wrong one that keeps its points marks a
sentence the hidden tests miss). Which share the visible checks flag is printed (``-rP`` shows it, under xdist
too), not asserted per file: that is the figure the issue reports; ``python -m graders judge --answers DIR``
prints it too.

A file its author misread (the folder's ``verdicts.toml``) is judged as its other kind."""

from __future__ import annotations

import pytest

from graders.paths import notebook_names
from graders.qa.docstring_answers import Tally, read_answers
from tests.helpers.verdicts import ANSWER_SETS, answer_outcomes

CASES = [(root, name) for root in ANSWER_SETS for name in notebook_names() if read_answers(root, [name]).get(name)]
IDS = [f"{root.name}-{name}" for root, name in CASES]


def test_there_are_answers_to_judge():
    assert len(ANSWER_SETS) == 4 and all(any(r == root for r, _ in CASES) for root in ANSWER_SETS)


@pytest.mark.parametrize("root, name", CASES, ids=IDS)
def test_every_correct_answer_keeps_full_marks(root, name):
    losing = [o.problem() for o in answer_outcomes(root, name) if o.counts_as == "correct" and o.problem()]
    assert not losing, "\n".join(losing)


@pytest.mark.parametrize("root, name", CASES, ids=IDS)
def test_every_wrong_answer_loses_points_and_the_hidden_tests_alone_catch_it(root, name):
    mine = answer_outcomes(root, name)
    assert any(o.counts_as == "wrong" for o in mine)
    kept = [o.problem() for o in mine if o.counts_as == "wrong" and o.problem()]
    assert not kept, "\n".join(kept)
    unseen = [f"{o.answer.path}: breaks {o.answer.claim}" for o in mine if o.counts_as == "wrong" and not o.caught_by]
    assert not unseen, "the hidden tests alone pass:\n" + "\n".join(unseen)


@pytest.mark.parametrize("root", ANSWER_SETS, ids=[r.name for r in ANSWER_SETS])
def test_the_share_the_visible_checks_flag_is_reported(root):
    names = [n for r, n in CASES if r == root]
    judged = {name: answer_outcomes(root, name) for name in names}
    every = [o for mine in judged.values() for o in mine]
    tallies = [Tally.of(name, judged[name]) for name in names] + [Tally.of("in all", every)]
    print(f"\n{root.name}\n" + Tally.header() + "\n" + "\n".join(t.row() for t in tallies))
    unseen = [o.answer.path for o in every if o.counts_as == "wrong" and not o.flagged_by]
    print("wrong answers the visible checks do not flag:\n  " + ("\n  ".join(unseen) or "none"))
    assert tallies[-1].wrong + tallies[-1].correct == len(every)
    assert tallies[-1].flagged == tallies[-1].wrong - len(unseen)
