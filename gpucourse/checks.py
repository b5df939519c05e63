"""Friendly self-checks for the visible test cells, in the manner of Kaggle's learntools.

A visible test cell reads::

    with Check("to_device") as check:
        out = check.call(to_device, batch, "cpu")
        check.that(isinstance(out, dict), "A dict must come back as a dict.")

It prints ``[PASS] to_device ...`` when every check holds. A failing check raises
:class:`CheckFailed` (an AssertionError, so nbgrader marks the cell failed) whose message is
the hint, and prints ``[FAIL]`` with the same hint first. Hints say what to look at, never
the answer.
"""

from __future__ import annotations

import math

import torch


class CheckFailed(AssertionError):
    """A self-check did not hold; the message is the hint for the student."""


class Check:
    def __init__(self, exercise: str, passed: str | None = None):
        self.exercise = exercise
        self.passed = passed or "the visible checks pass. The autograder runs more cases."
        self.count = 0

    # -- context manager ------------------------------------------------------------------------
    def __enter__(self) -> "Check":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            print(f"[PASS] {self.exercise}: {self.passed}")
            return False
        if isinstance(exc, CheckFailed):
            print(f"[FAIL] {self.exercise}: {exc}")
        elif isinstance(exc, NotImplementedError):
            print(f"[TODO] {self.exercise}: not answered yet. Replace `raise NotImplementedError()` "
                  "with your code, run that cell, then run this one again.")
        else:
            print(f"[FAIL] {self.exercise}: your code raised {type(exc).__name__}: {exc}")
        return False  # re-raise, so that the cell fails

    # -- checks -------------------------------------------------------------------------------
    def that(self, condition: bool, hint: str) -> None:
        """Fail with ``hint`` unless ``condition`` holds."""
        self.count += 1
        if not condition:
            raise CheckFailed(hint)

    def equal(self, got, expected, hint: str) -> None:
        """Fail unless ``got == expected``; the hint is followed by what came back."""
        self.count += 1
        if not got == expected:
            raise CheckFailed(f"{hint} (got {got!r})")

    def close(self, got, expected, hint: str, rel: float = 1e-6, abs_: float = 1e-9) -> None:
        """Fail unless two numbers (or tensors) agree within a tolerance."""
        self.count += 1
        if isinstance(got, torch.Tensor) or isinstance(expected, torch.Tensor):
            ok = torch.allclose(torch.as_tensor(got).double(), torch.as_tensor(expected).double(),
                                rtol=rel, atol=abs_)
        else:
            try:
                ok = math.isclose(float(got), float(expected), rel_tol=rel, abs_tol=abs_)
            except (TypeError, ValueError):
                ok = False
        if not ok:
            raise CheckFailed(f"{hint} (got {got!r})")

    def call(self, fn, *args, **kwargs):
        """Call the student's function; its own exceptions pass through with a clear label."""
        return fn(*args, **kwargs)
