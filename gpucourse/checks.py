"""Friendly self-checks for the visible test cells, in the manner of Kaggle's learntools.

A visible test cell reads::

    with Check("to_device") as check:
        out = check.call(to_device, batch, "cpu")
        check.that(isinstance(out, dict), "A dict must come back as a dict.")

It prints ``[PASS] to_device: ...`` when every check holds, and says that the autograder checks more
cases. A failing check raises :class:`CheckFailed` (an AssertionError, so nbgrader scores the cell 0)
whose message is the hint; IPython shows it as the one line ``[FAIL] to_device: <hint>``, in place of a
traceback (``_render_traceback_``). An exception from the student's code inside the check becomes such a
line too, naming the exception and the line of the student's cell it came from. Hints say what to look
at, never the answer.

While an exercise is still nbgrader's skeleton (``raise NotImplementedError()``), its check fails with the
one line ``[TODO] <exercise>: ...`` naming the exercise that is unfinished (the one checked, or an earlier
one it uses). A demonstration that runs a student's answer starts with ``if needs("to_device"):`` and,
while that answer is unfinished, prints one ``[SKIP]`` line that names it instead of failing (see
:func:`needs`). Hidden tests state each requirement with :class:`requirement`, so that their failure
names it.
"""

from __future__ import annotations

import dis
import math
import os
import sys
import sysconfig

import torch

from gpucourse import contract
from gpucourse.released import SIGNATURES


class OneLine:
    """An exception IPython shows as its tagged line(s) only: ``_render_traceback_()`` replaces the
    traceback (IPython's ``showtraceback``), so the output is the hint, not twenty lines that end inside
    this module. The cell still fails: the error output is there, and nbgrader scores it 0."""

    tag = ""
    exercise: str | None = None  # set by the Check that failed

    def _render_traceback_(self) -> list[str]:
        where = f" {self.exercise}:" if self.exercise else ""
        return f"{self.tag}{where} {self}".splitlines() or [self.tag]


class CheckFailed(OneLine, AssertionError):
    """A self-check did not hold; the message is the hint for the student, shown as ``[FAIL] <exercise>: <hint>``."""

    tag = "[FAIL]"


class RequirementFailed(OneLine, AssertionError):
    """A hidden test's requirement did not hold: the message names the requirement (see :class:`requirement`)."""

    tag = "[FAIL] autograder's test:"


class Unanswered(OneLine, NotImplementedError):
    """An exercise is still its skeleton, shown as ``[TODO] <exercise>: ...``: nothing in it is the
    student's mistake to find."""

    tag = "[TODO]"


def _failed(cls, exercise: str, message: str):
    error = cls(message)
    error.exercise = exercise
    return error


def _site_folders() -> set[str]:
    """The site folders on ``sys.path``, wherever they are: a venv made with ``--system-site-packages`` (GPU
    images, conda, cluster modules) or a ``.pth`` file reaches another prefix's site-packages, and
    ``pip install --user`` fills the user site; none of them is under this interpreter's own prefix."""
    return {p for p in sys.path if isinstance(p, str) and os.path.isabs(p)
            and os.path.basename(p.rstrip(os.sep)) in ("site-packages", "dist-packages")}


#: Where library code lives (the standard library, installed packages, this package): a bare
#: NotImplementedError raised there is a real error, not an exercise's skeleton.
LIBRARY_DIRS = tuple(sorted({os.path.realpath(sysconfig.get_paths()[key]) + os.sep
                             for key in ("stdlib", "platstdlib", "purelib", "platlib")}
                            | {os.path.realpath(p) + os.sep for p in _site_folders()}
                            | {os.path.dirname(os.path.realpath(__file__)) + os.sep}))


def raised_in(tb) -> tuple[str | None, bool]:
    """(qualified name of the function where a traceback ends, whether that code is a library's)."""
    if tb is None:
        return None, False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return getattr(code, "co_qualname", code.co_name), os.path.realpath(code.co_filename).startswith(LIBRARY_DIRS)


def where_raised(tb) -> str:
    """`` (in `name`, line N of its cell)``: the last frame of the student's own code in a traceback, or ""."""
    own = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if not os.path.realpath(code.co_filename).startswith(LIBRARY_DIRS):
            own = (getattr(code, "co_qualname", code.co_name), tb.tb_lineno)
        tb = tb.tb_next
    if own is None:
        return ""
    name, line = own
    return f" (line {line} of the cell)" if name == "<module>" else f" (in `{name}`, line {line} of its cell)"


class requirement:
    """A hidden test's requirement, stated once: ``with requirement("throughput raises ValueError when
    warmup >= len(batches)"): ...``. Whatever goes wrong inside (a failed ``assert`` or an exception from
    the student's code, such as an ``UnboundLocalError``) fails as :class:`RequirementFailed` whose message
    starts with the requirement, so the feedback says what was checked, never only what broke."""

    def __init__(self, text: str):
        self.text = text

    def __enter__(self) -> requirement:
        self.state = contract.torch_state()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        changes = contract.state_changes(self.state)
        if changes:  # put it back, so that one answer that leaves a switch on fails this requirement only
            contract.restore(self.state)
        if exc_type is None and changes:
            raise RequirementFailed(f"{self.text} (torch's settings must be as they were: {'; '.join(changes)})") \
                from None
        if exc_type is None or not issubclass(exc_type, Exception):
            return False  # KeyboardInterrupt (the time limit) and SystemExit pass as they are
        if isinstance(exc, RequirementFailed):
            return False  # an inner requirement already said what failed
        detail = str(exc) if isinstance(exc, AssertionError) else f"your code raised {type(exc).__name__}: {exc}"
        detail += "" if isinstance(exc, AssertionError) else where_raised(tb)
        message = f"{self.text}" + (f" ({detail})" if detail else "")
        raise RequirementFailed(message) from None


class Check:
    def __init__(self, exercise: str, passed: str | None = None):
        self.exercise = exercise
        self.passed = passed or ("the visible checks pass. The autograder checks more cases (fresh inputs, "
                                  "edge cases) when you hand in.")
        self.count = 0

    # -- context manager ------------------------------------------------------------------------
    def __enter__(self) -> Check:
        self.state = contract.torch_state()
        self.released(sys._getframe(1).f_globals)
        return self

    def released(self, namespace: dict) -> None:
        """Fail at once, before any call, when the exercise's function has not the signature it was released with
        (``gpucourse.released``): a changed default or parameter changes every call the contract allows."""
        released = SIGNATURES.get(self.exercise)
        answer = namespace.get(self.exercise)
        if released is None or not callable(answer) or isinstance(answer, type):
            return
        problem = contract.signature_problem(answer, released)
        if problem:
            raise _failed(CheckFailed, self.exercise, f"Keep the released signature {self.exercise}{released}: "
                                                      f"{problem}.")

    def __exit__(self, exc_type, exc, tb) -> bool:
        changes = contract.state_changes(self.state)
        if changes:  # put it back: an answer that leaves a switch on must not fail every later cell too
            contract.restore(self.state)
        if exc_type is None and changes:
            raise _failed(CheckFailed, self.exercise, "Leave torch's settings as you found them (use a `with` block, "
                                                      f"or restore them before returning): {'; '.join(changes)}.")
        if exc_type is None:
            print(f"[PASS] {self.exercise}: {self.passed}")
            return False
        if not issubclass(exc_type, Exception):
            return False  # KeyboardInterrupt (the time limit) and SystemExit pass as they are
        todo = self.todo(exc)
        if todo is not None:  # the cell fails, in the one line [TODO] <exercise>: ...
            raise _failed(Unanswered, self.exercise, todo) from None
        if isinstance(exc, CheckFailed):
            exc.exercise = exc.exercise or self.exercise
            return False  # re-raised: the cell fails, shown as its [FAIL] line
        hint = f"your code raised {type(exc).__name__}: {exc}{where_raised(exc.__traceback__)}"
        raise _failed(CheckFailed, self.exercise, hint) from None  # the hint, not a traceback into this module

    def todo(self, exc) -> str | None:
        """What is unanswered, when ``exc`` says so (a skeleton's bare NotImplementedError, or this
        exercise's name not defined yet); None for a real error."""
        if isinstance(exc, NameError) and getattr(exc, "name", None) == self.exercise:
            return (f"`{self.exercise}` is not defined yet: run its cell above (it raises "
                    "NotImplementedError until you answer it), then run this one again.")
        if type(exc) is not NotImplementedError or exc.args:  # torch's NotImplementedError has a message
            return None
        owner, in_library = raised_in(exc.__traceback__)
        if in_library:  # raised by a library, not by a skeleton in the notebook
            return None
        if owner in (None, "<module>") or owner.split(".")[0] == self.exercise:
            return ("not answered yet. Replace `raise NotImplementedError()` with your code, run that cell, "
                    "then run this one again.")
        # a finished answer that calls an unfinished one: point at the one to finish (a class, not its method)
        return (f"this check runs `{owner.split('.')[0]}`, which is not answered yet: finish that exercise "
                "first, run its cell, then run this one again.")

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

    def forall(self, strategy, holds, hint: str, examples: int = 30, cases=()) -> None:
        """Fail with ``hint`` and the smallest input for which ``holds(input)`` is false or raises: of ``cases`` (a
        fixed sample covering the domain, ``gpucourse.domains``), then of ``examples`` drawn from ``strategy`` the same
        way on every machine, which Hypothesis shrinks."""
        self.count += 1
        found = contract.counterexample(strategy, holds, examples, cases)
        if found is None:
            return
        shown, error = found
        if error is not None and self.todo(error) is not None:
            raise error  # an unanswered exercise: its [TODO] line, not a failure
        said = "" if error is None else (f"; your code raised {type(error).__name__}: {error}"
                                         f"{where_raised(error.__traceback__)}")
        raise CheckFailed(f"{hint} (smallest failing input: {shown}{said})")

    def call(self, fn, *args, **kwargs):
        """Call the student's function; its own exceptions pass through with a clear label."""
        return fn(*args, **kwargs)


# -- demonstrations that run the student's answers --------------------------------------------------
SKIPPED_OPS = {"PUSH_NULL", "PRECALL", "CACHE", "NOP", "EXTENDED_ARG"}


def is_skeleton_code(code) -> bool:
    """True when ``code`` (or a function nested in it) still has nbgrader's ``raise NotImplementedError()``.

    Only the bare form counts, without a message, as nbgrader writes it. Read from the bytecode: no
    source is needed and nothing is called.
    """
    ops = [i for i in dis.get_instructions(code) if i.opname not in SKIPPED_OPS]
    for at, ins in enumerate(ops):
        if ins.opname not in ("LOAD_GLOBAL", "LOAD_NAME") or ins.argval != "NotImplementedError":
            continue
        after = ops[at + 1:at + 3]
        if after and after[0].opname == "RAISE_VARARGS":  # raise NotImplementedError
            return True
        if len(after) == 2 and after[0].opname in ("CALL", "CALL_FUNCTION") and after[0].arg == 0 \
                and after[1].opname == "RAISE_VARARGS":  # raise NotImplementedError()
            return True
    return any(is_skeleton_code(c) for c in code.co_consts if hasattr(c, "co_code"))


def unfinished(answer) -> bool:
    """True for an exercise's answer that is missing (None: its cell never defined it) or still a skeleton."""
    if answer is None:
        return True
    if isinstance(answer, type):  # a class is unfinished while any of its methods is
        methods = [getattr(v, "__func__", v) for v in vars(answer).values()]  # staticmethod, classmethod
        return any(unfinished(m) for m in methods if callable(m) and not isinstance(m, type))
    code = getattr(answer, "__code__", None)
    return code is not None and is_skeleton_code(code)


def needs(*exercises: str, namespace: dict | None = None) -> bool:
    """True when every named exercise of this notebook is answered; otherwise print one ``[SKIP]`` line
    naming the unfinished ones and return False.

    A demonstration that runs the student's answers is written ``if needs("to_device"): ...``, so that
    an untouched notebook, run top to bottom, skips it cleanly (no traceback, no empty axes) and says
    what to finish. ``namespace`` defaults to the notebook's (``__main__``); nothing is called.
    """
    if namespace is None:
        namespace = vars(sys.modules["__main__"])
    todo = [name for name in exercises if unfinished(namespace.get(name))]
    if todo:
        names = " and ".join(f"`{name}`" for name in todo)
        one = len(todo) == 1
        print(f"[SKIP] This demonstration runs your {names}, which {'is' if one else 'are'} not answered yet: "
              f"finish {'that exercise' if one else 'those exercises'} above, "
              f"run {'its cell' if one else 'their cells'}, then run this cell again.")
    return not todo
