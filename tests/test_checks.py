import pytest
import torch

from gpucourse.checks import Check, CheckFailed


def test_pass_prints_pass_line(capsys):
    with Check("demo") as check:
        check.that(True, "never shown")
        check.equal(2, 2, "never shown")
        check.close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-9]), "never shown")
    assert capsys.readouterr().out.startswith("[PASS] demo")


def test_failure_raises_with_hint(capsys):
    with pytest.raises(CheckFailed, match="Look at the dtype"):
        with Check("demo") as check:
            check.equal(torch.float16, torch.float32, "Look at the dtype.")
    out = capsys.readouterr().out
    assert out.startswith("[FAIL] demo: Look at the dtype.") and "got torch.float16" in out


def test_check_failed_is_an_assertion_error():
    assert issubclass(CheckFailed, AssertionError)


def test_not_implemented_gets_todo_line(capsys):
    def stub():
        raise NotImplementedError()
    with pytest.raises(NotImplementedError):
        with Check("demo") as check:
            check.call(stub)
    assert capsys.readouterr().out.startswith("[TODO] demo")


def test_close_rejects_non_numbers():
    with pytest.raises(CheckFailed):
        with Check("demo") as check:
            check.close("abc", 1.0, "a number")
