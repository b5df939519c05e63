"""The note the feedback adds under a visible [PASS] above a hidden failure: only there, and only once (issue 22,
deliverable 4). The graded cases, by real nbgrader: tests/e2e/grading/test_tracebacks_e2e.py."""

from __future__ import annotations

import nbformat


def test_the_feedback_note_only_goes_under_a_visible_pass_and_only_once():
    from graders.export.feedback import MORE_CHECKED, clean_for_student

    def cell(grade_id, outputs):
        c = nbformat.v4.new_code_cell("with Check('x') as check:\n    pass\n")
        c.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "points": 1, "solution": False}
        c.outputs = outputs
        return c

    passed = nbformat.v4.new_output("stream", name="stdout", text="[PASS] x: the visible checks pass.\n")
    hidden = nbformat.v4.new_output("error", ename="AssertionError", evalue="x(-1) is 1",
                                    traceback=["\x1b[0;31m---> 3 assert x(-1) == 1, 'x(-1) is 1'\x1b[0m"])
    other = nbformat.v4.new_output("error", ename="CheckFailed", evalue="y(1) is 2",
                                   traceback=["[FAIL] y: y(1) is 2"])
    nb = nbformat.v4.new_notebook(cells=[cell("t1", [passed, hidden]), cell("t2", [passed, other]),
                                         cell("t3", [hidden])])
    once = clean_for_student(nb)
    assert clean_for_student(once) == once, "feedback cleans twice (itself, then as nbgrader's preprocessor)"
    t1, t2, t3 = ([o["traceback"] for o in c.outputs if o.output_type == "error"] for c in once.cells)
    assert t1 == [[MORE_CHECKED + "AssertionError: x(-1) is 1"]], "the hidden line it quoted is gone, too"
    assert t2 == [["[FAIL] y: y(1) is 2"]], "a visible check of another exercise failed: no note"
    assert t3 == [["AssertionError: x(-1) is 1"]], "no [PASS] above it: nothing to explain"


