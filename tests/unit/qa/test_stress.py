"""``python -m graders stress``: it finds hidden tests that pass a wrong answer, or fail a right one,
only on some random draws."""

from __future__ import annotations

import random

from graders.mistakes import for_notebook
from graders.qa.stress import Case, Tally, cases_for, run_cases


def _case(label, tests, must_fail, answers=None, restore=None):
    """A case as the kernel receives it."""
    return Case(label, answers or {}, restore or {}, tests, must_fail).__dict__


def test_counts_chance_passes_and_chance_failures():
    namespace = {"random": random}
    flaky = "assert random.random() < 0.5, 'unlucky draw'\n"
    tallies = run_cases([_case("right", {"t": flaky}, must_fail=False),
                         _case("wrong", {"t": flaky}, must_fail=True)], 200, namespace)
    right, wrong = (Tally(**t) for t in tallies)
    assert right.runs == wrong.runs == 200
    assert 0 < right.wrong < 200 and 0 < wrong.wrong < 200  # both ways, about half the time
    assert "failed in" in right.problem() and "unlucky draw" in right.problem()
    assert "passed in" in wrong.problem()


def test_a_steady_test_has_no_problem_and_answers_are_restored():
    namespace = {}
    exec("def f(): return 1\n", namespace)
    check = "assert f() == 1, 'f must return 1'\n"
    tallies = run_cases([_case("off-by-one", {"t": check}, True, {"f": "def f(): return 2\n"},
                               {"f": "def f(): return 1\n"}),
                         _case("reference", {"t": check}, False)], 5, namespace)
    assert [Tally(**t).problem() for t in tallies] == [None, None]
    assert namespace["f"]() == 1


def test_cases_cover_the_reference_and_every_mistake():
    cases = cases_for("08_throughput")
    mistakes = for_notebook("08_throughput")
    assert cases[0].label == "reference" and not cases[0].must_fail
    assert set(cases[0].tests) == {"test_throughput", "test_speedup_table", "test_gpu_resident_batches"}
    assert [c.label for c in cases[1:]] == [m.key for m in mistakes]
    for case, mistake in zip(cases[1:], mistakes, strict=True):
        assert case.must_fail == bool(mistake.loses)
        assert case.answers == {mistake.cell: mistake.code}
        assert "### BEGIN SOLUTION" not in case.restore[mistake.cell]




def test_only_narrows_every_case_to_the_named_test_cells():
    every = for_notebook("08_throughput")
    mistakes = [next(m for m in every if m.key == "sorted"), next(m for m in every if "test_throughput" in m.loses)]
    cases = cases_for("08_throughput", mistakes, only=["test_speedup_table"])
    assert [c.label for c in cases] == ["reference", "sorted", mistakes[1].key]
    assert set(cases[0].tests) == set(cases[1].tests) == {"test_speedup_table"}
    assert cases[2].tests == {}  # it loses another test cell only: nothing of it is run
