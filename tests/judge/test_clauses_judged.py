"""Issue 35, deliverables 1 and 2, as the judge shows them: each clause of a graded docstring that a visible
check covers fails, for the mistake that breaks it alone, with that clause's hint; and every catalogued mistake
that loses points is also caught by the hidden tests on their own, with a failure that names the requirement
(so a student who fits the visible inputs still loses the points). The clause lists themselves are read in the
unit tier (tests/unit/authoring/test_clauses.py)."""

from __future__ import annotations

import pytest

from graders.authoring import clauses
from graders.paths import notebook_names
from tests.helpers.verdicts import verdicts


@pytest.mark.parametrize("name", notebook_names())
def test_each_visible_clause_fails_its_mistake_with_its_hint(name):
    problems = clauses.verdict_problems(name, verdicts(name))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", notebook_names())
def test_the_hidden_tests_alone_catch_every_mistake_and_name_what_broke(name):
    problems = [p for v in verdicts(name) if (p := v.hidden_problem())]
    assert not problems, "\n".join(problems)
