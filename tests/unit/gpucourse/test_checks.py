"""gpucourse.checks: [PASS] says that more is checked, a failure is one [FAIL] line with the hint (never a
traceback), a hidden test's failure names its requirement. In a real kernel:
tests/e2e/grading/test_tracebacks_e2e.py."""

import pytest
import torch

from gpucourse.checks import Check, CheckFailed, RequirementFailed, Unanswered, requirement


def failure(body) -> tuple[BaseException, list[str]]:
    """What ``body(check)`` raised inside ``Check("demo")``, and the lines IPython would show for it."""
    with pytest.raises(BaseException) as caught:
        with Check("demo") as check:
            body(check)
    return caught.value, caught.value._render_traceback_()


def test_pass_prints_pass_line_saying_the_autograder_checks_more(capsys):
    with Check("demo") as check:
        check.that(True, "never shown")
        check.equal(2, 2, "never shown")
        check.close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-9]), "never shown")
    out = capsys.readouterr().out
    assert out.startswith("[PASS] demo: the visible checks pass") and "autograder checks more cases" in out


def test_failure_is_one_fail_line_with_the_hint(capsys):
    error, shown = failure(lambda check: check.equal(torch.float16, torch.float32, "Look at the dtype."))
    assert isinstance(error, CheckFailed) and isinstance(error, AssertionError)  # nbgrader: an error, 0 points
    assert shown == ["[FAIL] demo: Look at the dtype. (got torch.float16)"]
    assert str(error) == "Look at the dtype. (got torch.float16)"  # the hint, as the judge reports it
    assert capsys.readouterr().out == "", "the [FAIL] line is the error output itself, not printed twice"


def test_an_exception_from_the_students_code_is_a_fail_line_naming_it():
    def answer():
        return {}["missing"]
    namespace = {"answer": answer}
    error, shown = failure(lambda check: check.call(namespace["answer"]))
    assert isinstance(error, CheckFailed) and len(shown) == 1
    assert shown[0].startswith("[FAIL] demo: your code raised KeyError: 'missing' (in `")
    assert "answer" in shown[0] and "line" in shown[0]


def test_an_interrupt_is_not_turned_into_a_hint():
    """The grader's time limit interrupts a cell with KeyboardInterrupt: it must stay one."""
    with pytest.raises(KeyboardInterrupt):
        with Check("demo"):
            raise KeyboardInterrupt


def test_not_implemented_gets_todo_line(capsys):
    namespace: dict = {}  # the exercise's own skeleton, as nbgrader writes it, defined in a cell
    exec(compile("def demo():\n    raise NotImplementedError()\n", "<cell>", "exec"), namespace)
    error, shown = failure(lambda check: check.call(namespace["demo"]))
    assert isinstance(error, Unanswered) and isinstance(error, NotImplementedError)
    assert shown[0].startswith("[TODO] demo: not answered yet") and len(shown) == 1
    assert capsys.readouterr().out == ""


def test_close_rejects_non_numbers():
    error, shown = failure(lambda check: check.close("abc", 1.0, "a number"))
    assert isinstance(error, CheckFailed) and shown == ["[FAIL] demo: a number (got 'abc')"]


def test_a_multi_line_hint_stays_its_own_lines():
    _, shown = failure(lambda check: check.that(False, "first\nsecond"))
    assert shown == ["[FAIL] demo: first", "second"]


def test_a_hidden_requirement_names_itself_whatever_broke():
    def throughput(batches, warmup):
        for i, _b in enumerate(batches):
            if i == warmup:
                start = 0.0
        return len(batches) / start  # UnboundLocalError when warmup >= len(batches)

    with pytest.raises(RequirementFailed) as caught:
        with requirement("throughput raises ValueError when warmup >= len(batches)"):
            throughput([1, 2], warmup=5)
    message = str(caught.value)
    assert message.startswith("throughput raises ValueError when warmup >= len(batches) (your code raised "
                              "UnboundLocalError")
    assert "in `test_a_hidden_requirement_names_itself_whatever_broke.<locals>.throughput`" in message
    assert caught.value._render_traceback_() == [f"[FAIL] autograder's test: {message}"]

    with pytest.raises(RequirementFailed, match=r"^the median, not the mean \(got 3.0\)$"):
        with requirement("the median, not the mean"):
            raise AssertionError("got 3.0")  # a hidden test's assert (pytest would rewrite a plain one)
    with pytest.raises(RequirementFailed, match="^outer$"):  # the outer one adds nothing: the inner one said it
        with requirement("inner"), requirement("outer"):
            raise AssertionError
    with pytest.raises(RequirementFailed, match="^inner$"):
        with requirement("outer"), requirement("inner"):
            raise AssertionError
    with requirement("nothing wrong"):
        pass
