"""A graded notebook as nbgrader writes it, with a test cell for each way a test cell loses points, for the tests
of why a point was lost (tests/unit/grading/test_loss_reasons.py, tests/unit/export/test_loss_reasons_feedback.py).
Every test cell has hidden tests whose code must never show in a reason or on a feedback page."""

from __future__ import annotations

import nbformat

HINT = "a dict must come back as a dict"
REQUIREMENT = "every tensor moved, the input untouched"
MESSAGE = "accuracy over all examples"
HIDDEN_CODE = "assert abs(_acc - _expected) < 1e-9, 'accuracy over all examples'"
BARE = "assert _out['a'][1][2] is None and _nested is _parts"
FINDING = "torch.optim.sgd.SGD.step was replaced"
PASS = "[PASS] {}: the visible checks pass. The autograder checks more cases.\n"


def _test_cell(gid: str, outputs: list, points: float = 2) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(f"with Check('{gid}') as check:\n    pass\n"
                                     f"### BEGIN HIDDEN TESTS\n{HIDDEN_CODE}\n{BARE}\n### END HIDDEN TESTS\n")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": gid, "points": points, "solution": False}
    cell.outputs = outputs
    return cell


def _stream(text: str):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def _error(ename: str, evalue: str, traceback: list[str]):
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=traceback)


def graded_notebook() -> nbformat.NotebookNode:
    """A graded notebook as nbgrader writes it: one test cell for each way a test cell fails, and one that passes."""
    quoting = [f"\x1b[0;31m---> 3 {HIDDEN_CODE}\x1b[0m", f"AssertionError: {MESSAGE}"]
    return nbformat.v4.new_notebook(cells=[
        _test_cell("t_pass", [_stream(PASS.format("t_pass"))]),
        _test_cell("t_visible", [_error("CheckFailed", HINT, [f"[FAIL] t_visible: {HINT}"])]),
        _test_cell("t_requirement", [_stream(PASS.format("t_requirement")), _error(
            "RequirementFailed", REQUIREMENT, [f"[FAIL] autograder's test: {REQUIREMENT}"])]),
        _test_cell("t_message", [_stream(PASS.format("t_message")), _error("AssertionError", MESSAGE, quoting)]),
        _test_cell("t_bare", [_error("AssertionError", "", [f"\x1b[0;31m---> 4 {BARE}\x1b[0m", "AssertionError: "])]),
        _test_cell("t_crash", [_error("ZeroDivisionError", "division by zero", ["Traceback ...", "1 / 0"])]),
        _test_cell("t_slow", [_error("KeyboardInterrupt", "", ["KeyboardInterrupt: "])]),
    ])


def scored(nb) -> dict:
    """{grade_id: (score, points)} by nbgrader's rule: an error output scores 0."""
    return {c.metadata["nbgrader"]["grade_id"]: (0.0 if any(o.output_type == "error" for o in c.outputs) else 2.0,
                                                 2.0) for c in nb.cells}
