"""``python -m graders judge``: every mistake loses exactly the tests it names and every alternative
loses nothing, judged in one kernel per notebook, and the scores are those real nbgrader gave
(``tests/data/fixture_scores/NN.json``: first recorded from graded submissions, then by
``python -m graders judge NN --record`` after a reviewed change).

The judge first executes each solution top to bottom in quick mode, where any error stops it, and its
reference case passes every test cell: this is also the test that every solution runs."""

from __future__ import annotations

import concurrent.futures
import functools
import json
import multiprocessing

import pytest

from graders import nbtools
from graders.checks import inkernel
from graders.checks.judge import SCORES, Fixture, Verdict, fingerprint, fixtures_for, judge_notebook
from graders.commands import judge as command
from graders.mistakes import Mistake, for_notebook
from graders.paths import SOLUTIONS, notebook_names

SNAPSHOT = {path.stem: json.loads(path.read_text()) for path in sorted(SCORES.glob("*.json"))}


@functools.cache
def every_verdict() -> dict[str, tuple[Verdict, ...]]:
    """One judge run per notebook, shared by the tests that read it; two at a time (each in a process and a
    kernel of its own: most of a judge's time is its kernel's, and much of that the simulated device's sleeps)."""
    names = sorted(notebook_names(), key=lambda n: n not in ("03_async_timing", "07_compile"))  # longest first
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip(names, map(tuple, pool.map(judge_notebook, names))))


def verdicts(name: str) -> tuple[Verdict, ...]:
    return every_verdict()[name]


def reference_answer(name: str, cell: str) -> str:
    nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    return next(nbtools.answer_from_solution(c.source) for c in nb.cells if nbtools.grade_id(c) == cell)


@pytest.mark.judge
@pytest.mark.slow
@pytest.mark.parametrize("name", notebook_names())
def test_every_fixture_scores_as_it_must(name):
    problems = [v.problem() for v in verdicts(name) if v.problem()]
    assert not problems, "\n".join(problems)
    references = [v for v in verdicts(name) if v.kind == "reference"]
    assert [v.key for v in references] == ["reference", "reference-again"]
    assert all(v.score == v.max > 0 for v in references)


@pytest.mark.judge
@pytest.mark.slow
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


@pytest.mark.judge
@pytest.mark.slow
def test_exercise_judges_its_fixtures_against_every_test():
    name, cell = "01_devices", "pick_device"
    # right for its own cell, wrong for another exercise's: only a judge that runs every test sees it
    wrong_elsewhere = next(m for m in for_notebook(name) if m.key == "dict-ignored")
    fake = Fixture("mistake", Mistake("breaks-to-device", cell,
                                      reference_answer(name, cell) + "\n" + wrong_elsewhere.code,
                                      ("test_to_device",)))
    judged = judge_notebook(name, exercise=cell, fixtures=fixtures_for(name) + [fake])
    own = [f.answer.key for f in fixtures_for(name) if f.answer.cell == cell]
    assert [v.key for v in judged] == ["reference", *own, "breaks-to-device", "reference-again"]
    assert not [v.problem() for v in judged if v.problem()]
    assert judged[-2].lost == {"test_to_device"} and judged[-2].score < judged[-2].max


@pytest.mark.judge
@pytest.mark.slow
def test_wrong_expectations_and_hangs_are_reported():
    name = "01_devices"
    real = next(m for m in for_notebook(name) if m.key == "no-mps")
    hang = "def pick_device():\n    while True:\n        pass\n"
    fakes = [Fixture("alternative", Mistake("wrong-called-right", real.cell, real.code, ())),
             Fixture("mistake", Mistake("right-called-wrong", real.cell, reference_answer(name, real.cell),
                                        ("test_pick_device",))),
             Fixture("mistake", Mistake("hangs", real.cell, hang, ("test_pick_device",)))]
    judged = {v.key: v for v in judge_notebook(name, fixtures=fakes, timeout=10)}
    assert "test_pick_device failed" in judged["wrong-called-right"].problem()
    assert "test_pick_device passed" in judged["right-called-wrong"].problem()
    assert judged["hangs"].errors["test_pick_device"].startswith("KeyboardInterrupt")
    # the kernel came back from the interrupt, with the reference answer in place
    assert judged["reference-again"].problem() is None


def test_an_unknown_exercise_is_refused_before_any_kernel_starts():
    with pytest.raises(ValueError, match="pick_device"):
        judge_notebook("01_devices", exercise="no_such_cell")


def test_problem_names_what_passed_and_what_failed():
    v = Verdict("01_devices", "mistake", "k", "pick_device", frozenset({"test_a"}), frozenset({"test_b"}),
                5.0, 10.0, {"test_b": "AssertionError: off by one"})
    assert v.problem() == ("01_devices mistake k: must lose test_a, lost test_b: test_a passed; "
                           "test_b failed (AssertionError: off by one)")
    assert Verdict("01_devices", "alternative", "k", "c", frozenset(), frozenset(), 10.0, 10.0).problem() is None


def test_a_case_is_undone_and_its_output_swallowed(capsys):
    namespace = {}
    exec("class Counter:\n    pass\nmade = Counter()\n", namespace)
    reference = namespace["Counter"]
    errors = inkernel.begin_case(namespace, {"c": "class Counter:\n    pass\nhelper = 1\nprint('hi')\n"})
    assert errors == {} and namespace["Counter"] is not reference
    assert inkernel.run_test(namespace, "t", "assert isinstance(made, Counter), 'not a Counter'\n") \
        == "AssertionError: not a Counter"
    inkernel.end_case(namespace)
    assert namespace["Counter"] is reference and "helper" not in namespace
    assert inkernel.run_test(namespace, "t", "import warnings; warnings.warn('w'); print('out')\n"
                                             "assert isinstance(made, Counter)\n") is None
    assert capsys.readouterr() == ("", "")


def test_notebook_names_accept_the_number():
    assert command.resolve(["03", "08_throughput"]) == ["03_async_timing", "08_throughput"]
    with pytest.raises(SystemExit, match="no notebook"):
        command.resolve(["99"])
    assert command.with_exercise([], "pick_device") == ["01_devices"]
    with pytest.raises(SystemExit, match="no answer cell"):
        command.with_exercise(["02_transfers"], "pick_device")


def test_a_fixture_of_no_answer_cell_is_refused():
    stray = Fixture("mistake", Mistake("typo", "pick_devic", "x = 1\n", ("test_pick_device",)))
    with pytest.raises(ValueError, match="mistake:typo"):
        judge_notebook("01_devices", fixtures=[stray])


@pytest.mark.judge
@pytest.mark.slow
@pytest.mark.parametrize("name", notebook_names())
def test_every_mistake_that_loses_points_is_flagged_by_a_visible_check(name):
    """A self-study reader has only the visible checks: a [PASS] must mean the contract is met. Each mistake that
    loses hidden points fails the visible part of its exercise's test cell, unless the source says why it cannot."""
    problems = [v.coverage_problem() for v in verdicts(name) if v.coverage_problem()]
    assert not problems, "\n".join(problems)
    flagged = [v for v in verdicts(name) if v.flagged_by]
    assert all(v.visible[v.flagged_by[0]].startswith("CheckFailed: ") for v in flagged), \
        "a visible check flags a mistake with its hint ([FAIL] + CheckFailed), not with an error of its own"


@pytest.mark.judge
@pytest.mark.slow
def test_at_most_a_tenth_of_the_mistakes_are_hidden_only():
    from graders.checks.judge import Coverage
    every = [v for name in notebook_names() for v in verdicts(name)]
    coverage = Coverage.of("in all", every)
    print(coverage)
    assert coverage.hidden_only <= 0.10 * coverage.losing, str(coverage)


def test_coverage_problem_names_the_check_that_should_flag():
    base = dict(notebook="07_compile", kind="mistake", key="shared-list", cell="CompileCounter",
                expected=frozenset({"test_CompileCounter", "test_count_compilations"}),
                lost=frozenset({"test_CompileCounter", "test_count_compilations"}), score=0.0, max=10.0,
                own=frozenset({"test_CompileCounter"}))
    elsewhere = Verdict(**base, visible={"test_count_compilations": "CheckFailed: a new graph"})
    assert "test_CompileCounter" in elsewhere.coverage_problem() and "wrong exercise" in elsewhere.coverage_problem()
    assert Verdict(**base, visible={"test_CompileCounter": "CheckFailed: one list each"}).coverage_problem() is None
    assert Verdict(**base, hidden_only="hard-coded").coverage_problem() is None
    assert Verdict(**{**base, "kind": "alternative", "expected": frozenset()}).coverage_problem() is None


def test_hidden_only_is_read_from_the_source_with_its_reason():
    from graders.authoring.fixtures import FixtureError, parse
    reference = "def f(x):\n    return x + 1\n"
    text = ("**mistake `const`**, loses `test_f`, hidden-only (returns the visible input's answer): hard-coded\n"
            "```diff\n@@\n-    return x + 1\n+    return 3\n```\n")
    (mistake,), _ = parse(text, "f", reference)
    assert mistake.hidden_only == "returns the visible input's answer" and mistake.loses == ("test_f",)
    with pytest.raises(FixtureError, match="hidden-only"):
        parse(text.replace("hidden-only (returns the visible input's answer)", "hidden-only"), "f", reference)
