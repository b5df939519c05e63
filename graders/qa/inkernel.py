"""What the checks run inside a solution notebook's kernel (``graders.qa.kernel`` ships this
file's source there as the private module ``_course_checks``).

Standard library only, and its own globals: the answers it runs rebind names in the notebook's
namespace, and a student's helper called ``json`` or ``run_code`` must not break the checks.
The tests also import it here and call it on plain dicts.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings

MARKER = "COURSE-CHECK "
_saved: dict | None = None  # the notebook's namespace as it was before the case in progress
_saved_torch: dict | None = None  # torch's process-wide modes as they were before it
AUTOCAST_DEVICES = ("cpu", "cuda")


def describe(exc: BaseException) -> str:
    """``Type: first line of the message``: what a grader's feedback would show first."""
    text = str(exc).strip()
    if isinstance(exc, KeyboardInterrupt):  # the kernel timeout interrupts a cell that ran too long
        text = text or "interrupted: it ran past the time limit"
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}".rstrip(": ")


def _transformed(source: str) -> str:
    """As IPython would run it (magics, ``!`` lines), where there is an IPython."""
    shell = sys.modules["IPython"].get_ipython() if "IPython" in sys.modules else None
    return shell.transform_cell(source) if shell is not None else source


def _close_figures() -> None:
    """A test that plots must not leave figures behind for the next one (nor eat memory)."""
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def run_code(source: str, label: str, namespace: dict) -> str | None:
    """Run one cell's code in ``namespace`` with its output and warnings swallowed; the first line
    of what it raised, or None. Anything it raises counts, as in a graded cell: a failed check, an
    assert, ``SystemExit``, and ``KeyboardInterrupt`` (the kernel timeout)."""
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(_transformed(source), label, "exec"), namespace)
    except BaseException as exc:
        return describe(exc)
    finally:
        _close_figures()
    return None


def begin_case(namespace: dict, answers: dict[str, str]) -> dict[str, str]:
    """Remember the namespace, then put ``answers`` ({answer cell: code}) in place; what each raised."""
    global _saved, _saved_torch
    _saved, _saved_torch = dict(namespace), _torch_modes()
    errors = {cell: run_code(code, f"<answer {cell}>", namespace) for cell, code in answers.items()}
    return {cell: error for cell, error in errors.items() if error}


def end_case(namespace: dict) -> None:
    """The namespace as before the case: the reference's own objects, not a re-run of its cells (a
    class defined again would fail ``isinstance`` with the instances the notebook already made),
    and no helper names a case's answer left behind."""
    global _saved, _saved_torch
    if _saved is not None:
        namespace.clear()
        namespace.update(_saved)
    if _saved_torch is not None and _torch_modes() != _saved_torch:
        _restore_torch_modes(_saved_torch)
    _saved, _saved_torch = None, None


def _torch_modes() -> dict | None:
    """The modes torch keeps for the whole process, not in the namespace: an answer that enters autocast and
    never leaves it (wrong, and its own test says so) would otherwise leave it on for every later case."""
    torch = sys.modules.get("torch")  # never imported here: a notebook without torch has none of these
    if torch is None:
        return None
    return {"grad": torch.is_grad_enabled(), "default_dtype": torch.get_default_dtype(), "nesting": _nesting(torch),
            "autocast": {d: (torch.is_autocast_enabled(d), torch.get_autocast_dtype(d)) for d in AUTOCAST_DEVICES}}


def _nesting(torch) -> int:
    """How many autocasts are entered and not left (autocast has no getter for it)."""
    level = torch.autocast_increment_nesting() - 1
    torch.autocast_decrement_nesting()
    return level


def _restore_torch_modes(modes: dict) -> None:
    torch = sys.modules["torch"]
    torch.set_grad_enabled(modes["grad"])
    torch.set_default_dtype(modes["default_dtype"])
    for device, (enabled, dtype) in modes["autocast"].items():
        torch.set_autocast_enabled(device, enabled)
        torch.set_autocast_dtype(device, dtype)
    # an autocast entered and never left counts one nesting level too many: no later autocast then gets back to
    # level 0 on exit, where it empties its cache of cast weights, and a later one reuses float16 copies in bfloat16
    level = _nesting(torch)
    while level > modes["nesting"]:
        level = torch.autocast_decrement_nesting()
    while level < modes["nesting"]:
        level = torch.autocast_increment_nesting()
    torch.clear_autocast_cache()


def run_test(namespace: dict, test: str, source: str) -> str | None:
    return run_code(source, f"<{test}>", namespace)


def emit(namespace: dict, function: str, arguments: str) -> None:
    """The kernel's side of one call: run ``function(namespace, *arguments)``, print its JSON result."""
    result = globals()[function](namespace, *json.loads(arguments))
    print(MARKER + json.dumps(result))


def stress_cases(namespace: dict, cases: list[dict], repeats: int) -> list[dict]:
    return run_cases(cases, repeats, namespace)


def run_cases(cases: list[dict], repeats: int, namespace: dict) -> list[dict]:
    """``stress``: try each case's tests ``repeats`` times; one tally per (case, test)."""
    results = []
    for case in cases:
        for source in case["answers"].values():
            exec(compile(source, f"<answer of {case['label']}>", "exec"), namespace)
        for test, source in case["tests"].items():
            tally = {"label": case["label"], "test": test, "must_fail": case["must_fail"], "runs": 0,
                     "wrong": 0, "examples": []}
            for _ in range(repeats):
                error = run_test(namespace, test, source)
                tally["runs"] += 1
                if (error is None) == case["must_fail"]:
                    tally["wrong"] += 1
                    if error and len(tally["examples"]) < 3:  # what a chance failure said
                        tally["examples"].append(error)
            results.append(tally)
        for source in case["restore"].values():
            exec(compile(source, f"<reference for {case['label']}>", "exec"), namespace)
    return results
