"""``python -m graders stress`` on a real notebook: sorting the speed-up table always loses."""

from __future__ import annotations

from graders.mistakes import for_notebook
from graders.qa.stress import stress_notebook


def test_sorting_the_speedup_table_always_loses():
    """08's hidden test once let a sorted table pass when the random speeds were already in order
    (one draw in 6 with three rows); 30 runs caught that about 4 times in 5. Only that test cell is run (the
    others 30 times over were most of this test's time; ``python -m graders stress`` runs them all)."""
    sorted_rows = [m for m in for_notebook("08_throughput") if m.key == "sorted"]
    tallies = stress_notebook("08_throughput", repeats=30, mistakes=sorted_rows, only=["test_speedup_table"])
    problems = [t.problem() for t in tallies if t.problem()]
    assert not problems, problems
    assert {(t.label, t.test) for t in tallies} == {("sorted", "test_speedup_table"),
                                                    ("reference", "test_speedup_table")}
    assert all(t.runs == 30 for t in tallies)
