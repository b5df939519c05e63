"""Why a test cell lost points, in words a student may read: the one reader of a graded test cell's outputs
(``grades_detail.csv``'s ``reason``, ``review``'s listing and the feedback page all say what this says).

What a graded test cell shows is the reason when it failed: a visible check's one line (``[FAIL] to_device: a
dict must come back as a dict``, gpucourse.checks' rendering), a hidden test's requirement (``RequirementFailed``:
the sentence its ``requirement(...)`` names) or assertion message, or the exception and its message. A
traceback is never read: it quotes the failing line, which may be a hidden test's code.

What the notebook cannot show (points a tamper check took, a score withheld or decided in a review) is said by
``graders.grading.review``, which builds those reasons on the ones read here.
"""

from __future__ import annotations

import re

from graders import nbtools

#: put before a hidden test's failure in a test cell whose visible checks printed [PASS]
MORE_CHECKED = "The visible checks passed; the hidden tests check more cases and found: "
#: the exceptions of gpucourse.checks that IPython shows as one tagged line (no code in it)
ONE_LINE = {"CheckFailed", "Unanswered", "RequirementFailed"}
#: what nbgrader's kernel shows for a cell it interrupted at the cell time limit
TIMEOUT = ("CellTimeoutError", "KeyboardInterrupt")


def error_line(output) -> list[str]:
    """A test cell's error as the student may see it: gpucourse.checks' own tagged line(s) as IPython
    showed them, else ``Type: message`` (a traceback would quote the failing line of a hidden test)."""
    shown = output.get("traceback") or []
    if output.get("ename") in ONE_LINE and shown and shown[0].startswith("[") \
            and not any("Traceback" in line or "\x1b[" in line for line in shown):
        return list(shown)
    ename, evalue = output.get("ename", "Error"), str(output.get("evalue", ""))
    if ename in TIMEOUT:
        return [f"{ename}: stopped at the time limit for one cell"]
    if not evalue.strip():  # a bare `assert`: its line is the only text, and it may be hidden code
        return [f"{ename} (a check without a message failed)"]
    return f"{ename}: {evalue}".splitlines()


def passed_exercises(cell) -> set[str]:
    """The exercises whose visible checks printed ``[PASS] <exercise>: ...`` in this cell."""
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    return set(re.findall(r"^\[PASS\] ([^:\s]+):", text, re.M))


def hidden_failure(output, passed: set[str]) -> bool:
    """Whether an error under visible [PASS] lines is a hidden test's: anything but the [FAIL]/[TODO] line of
    a visible check of another exercise (a cell may check two)."""
    if not passed:
        return False
    if output.get("ename") in ("CheckFailed", "Unanswered"):
        tagged = re.match(r"^\[(?:FAIL|TODO)\] ([^:\s]+):", (output.get("traceback") or [""])[0])
        return bool(tagged) and tagged.group(1) in passed  # a hidden test that uses Check itself
    return True


def shown_error(output, passed: set[str]) -> list[str]:
    """The lines a student's feedback shows for an error output (``passed``: the cell's [PASS] exercises):
    under a visible [PASS], that the hidden tests check more, and what they found."""
    if str((output.get("traceback") or [""])[0]).startswith(MORE_CHECKED):
        return list(output["traceback"])  # already said (the feedback cleans a notebook twice)
    if not hidden_failure(output, passed):
        return error_line(output)
    if output.get("ename") == "RequirementFailed":
        found = str(output.get("evalue", "")).splitlines() or [""]  # the requirement, without the tag
    else:
        found = error_line(output)
    return [MORE_CHECKED + found[0], *found[1:]]


def cell_reason(cell) -> str:
    """Why a graded test cell failed, as its outputs say; "" when they show no error."""
    passed = passed_exercises(cell)
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    return " / ".join(" ".join(line.strip() for line in shown_error(o, passed)) for o in errors)


def notebook_reasons(graded_nb, cells: dict) -> dict[str, str]:
    """{grade_id: reason} for every test cell of ``cells`` ({grade_id: (score, points)}) that scored less than
    its points, read from the graded notebook."""
    by_id = {nbtools.grade_id(c): c for c in graded_nb.cells if nbtools.is_test_cell(c)}
    found = {}
    for gid, (got, points) in cells.items():
        if got >= points:
            continue
        cell = by_id.get(gid)
        if cell is None:
            found[gid] = "the test cell is missing from the graded notebook"
        else:
            found[gid] = cell_reason(cell) or f"nbgrader gave {got:g} of {points:g} and the cell shows no error"
    return found
