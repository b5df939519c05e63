"""The judge's parts that need no kernel: refusals, problem text, undo, notebook names, hidden-only reasons."""

from __future__ import annotations

import pytest

from graders.commands import judge as command
from graders.mistakes import Mistake
from graders.qa import inkernel
from graders.qa.judge import Fixture, Verdict, judge_notebook


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
