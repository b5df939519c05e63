"""``python -m graders judge``: every mistake loses exactly the tests it names and every alternative
loses nothing, judged in one kernel per notebook, and the scores are those real nbgrader gave
(``tests/data/fixture_scores/NN.json``: first recorded from graded submissions, then by
``python -m graders judge NN --record`` after a reviewed change).

The judge first executes each solution top to bottom in quick mode, where any error stops it, and its
reference case passes every test cell: this is also the test that every solution runs."""

from __future__ import annotations

import json

import pytest

from graders import nbtools
from graders.mistakes import Mistake, for_notebook
from graders.paths import SOLUTIONS, notebook_names
from graders.qa.judge import SCORES, Fixture, fingerprint, fixtures_for, judge_notebook
from tests.helpers.verdicts import verdicts

SNAPSHOT = {path.stem: json.loads(path.read_text()) for path in sorted(SCORES.glob("*.json"))}


def reference_answer(name: str, cell: str) -> str:
    nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    return next(nbtools.answer_from_solution(c.source) for c in nb.cells if nbtools.grade_id(c) == cell)


@pytest.mark.parametrize("name", notebook_names())
def test_every_fixture_scores_as_it_must(name):
    problems = [v.problem() for v in verdicts(name) if v.problem()]
    assert not problems, "\n".join(problems)
    references = [v for v in verdicts(name) if v.kind == "reference"]
    assert [v.key for v in references] == ["reference", "reference-again"]
    assert all(v.score == v.max > 0 for v in references)


@pytest.mark.parametrize("name", notebook_names())
def test_scores_match_the_nbgrader_snapshot(name):
    judged = {f"{v.kind}:{v.key}": v for v in verdicts(name) if v.kind != "reference"}
    fixtures = {f.label: f for f in fixtures_for(name)}
    assert len(fixtures) == len(fixtures_for(name)), "two fixtures share a key"
    assert set(judged) == set(fixtures) == set(SNAPSHOT[name]), "a fixture was dropped or added"
    differ = []
    for label, recorded in SNAPSHOT[name].items():
        v, code = judged[label], fixtures[label].answer.code
        now = {"cell": v.cell, "lost": sorted(v.lost), "score": v.score, "max": v.max, "ast_sha256": fingerprint(code)}
        if now != recorded:
            differ.append(f"{label}: now {now}, recorded {recorded}")
    assert not differ, "\n".join(differ)


NAME, CELL = "01_devices", "pick_device"
# hangs on its first call only: one cell runs into the time limit, which can then be generous enough for the
# reference's own cells at a load of 10 (10 s was not: test_evaluate ran past it in a fresh-clone CI run)
HANG = ("_calls = []\n\n\ndef pick_device():\n    _calls.append(1)\n    while len(_calls) == 1:\n"
        "        pass\n    return 'cpu'\n")


@pytest.fixture(scope="module")
def judged_with_fakes() -> list:
    """One judge run of 01's pick_device (``--exercise``) in a kernel of its own, for the two tests below (each
    made its own before: executing 01's solution is most of the cost): every fixture of 01 is offered (--exercise
    keeps pick_device's), with fakes that must be reported."""
    # right for its own cell, wrong for another exercise's: only a judge that runs every test sees it
    wrong_elsewhere = next(m for m in for_notebook(NAME) if m.key == "dict-ignored")
    real = next(m for m in for_notebook(NAME) if m.key == "no-mps")
    assert real.cell == CELL != wrong_elsewhere.cell
    fakes = [Fixture("mistake", Mistake("breaks-to-device", CELL,
                                        reference_answer(NAME, CELL) + "\n" + wrong_elsewhere.code,
                                        ("test_to_device",))),
             Fixture("alternative", Mistake("wrong-called-right", real.cell, real.code, ())),
             Fixture("mistake", Mistake("right-called-wrong", real.cell, reference_answer(NAME, real.cell),
                                        ("test_pick_device",))),
             Fixture("mistake", Mistake("hangs", real.cell, HANG, ("test_pick_device",)))]
    return judge_notebook(NAME, exercise=CELL, fixtures=fixtures_for(NAME) + fakes, timeout=60)


def test_exercise_judges_its_fixtures_against_every_test(judged_with_fakes):
    own = [f.answer.key for f in fixtures_for(NAME) if f.answer.cell == CELL]
    assert [v.key for v in judged_with_fakes] == ["reference", *own, "breaks-to-device", "wrong-called-right",
                                                  "right-called-wrong", "hangs", "reference-again"]
    judged = {v.key: v for v in judged_with_fakes}
    assert not [v.problem() for key, v in judged.items() if key in {"reference", *own, "breaks-to-device"}
                and v.problem()]
    fake = judged["breaks-to-device"]
    assert fake.lost == {"test_to_device"} and fake.score < fake.max


def test_wrong_expectations_and_hangs_are_reported(judged_with_fakes):
    judged = {v.key: v for v in judged_with_fakes}
    assert "test_pick_device failed" in judged["wrong-called-right"].problem()
    assert "test_pick_device passed" in judged["right-called-wrong"].problem()
    assert judged["hangs"].errors["test_pick_device"].startswith("KeyboardInterrupt")
    # the kernel came back from the interrupt, with the reference answer in place
    assert judged["reference-again"].problem() is None


@pytest.mark.parametrize("name", notebook_names())
def test_every_mistake_that_loses_points_is_flagged_by_a_visible_check(name):
    """A self-study reader has only the visible checks: a [PASS] must mean the contract is met. Each mistake that
    loses hidden points fails the visible part of its exercise's test cell, unless the source says why it cannot."""
    problems = [v.coverage_problem() for v in verdicts(name) if v.coverage_problem()]
    assert not problems, "\n".join(problems)
    flagged = [v for v in verdicts(name) if v.flagged_by]
    assert all(v.visible[v.flagged_by[0]].startswith("CheckFailed: ") for v in flagged), \
        "a visible check flags a mistake with its hint ([FAIL] + CheckFailed), not with an error of its own"


def test_at_most_a_tenth_of_the_mistakes_are_hidden_only():
    from graders.qa.judge import Coverage
    every = [v for name in notebook_names() for v in verdicts(name)]
    coverage = Coverage.of("in all", every)
    print(coverage)
    assert coverage.hidden_only <= 0.10 * coverage.losing, str(coverage)


def test_no_catalogued_mistake_meets_a_raw_traceback_in_a_visible_check():
    """Every visible check a catalogued mistake fails, in every notebook, fails as a one-line [FAIL] or [TODO]
    (a gpucourse.checks exception): counted from the judge's run, which runs each mistake's visible parts."""
    one_line = ("CheckFailed: ", "Unanswered: ")
    failures = [(name, v.key, test, error) for name in notebook_names() for v in verdicts(name)
                if v.kind == "mistake" for test, error in v.visible.items()]
    raw = [f"{name} {key} {test}: {error}" for name, key, test, error in failures if not error.startswith(one_line)]
    print(f"raw tracebacks in failing visible checks: {len(raw)} of {len(failures)}")
    assert failures and raw == [], "\n".join(raw)
