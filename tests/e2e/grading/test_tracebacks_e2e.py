"""A [FAIL] is the hint, not a traceback, and the feedback never shows a visible [PASS] above a hidden
failure without saying that more was checked (issue 22, deliverable 4).

One small assignment, graded by real nbgrader (generate_assignment, autograde in a real IPython kernel,
generate_feedback through ``graders.export.feedback.student_feedback``, as ``python -m graders feedback``
does), holds every case: a visible check that fails, the student's code raising inside a check, an
unanswered skeleton, a passing exercise, and hidden tests failing under a visible [PASS], with and without
``requirement(...)``. The feedback note alone: tests/unit/export/test_feedback_note.py. The untouched course
notebooks are counted in tests/e2e/gpucourse/test_student_path_e2e.py, and every catalogued mistake's visible
failure in tests/judge/test_tracebacks_judge.py, from the judge's run.
"""

from __future__ import annotations

import html
import re

import nbformat
import pytest

from graders import nbtools

NAME = "99_probe"


#: (exercise, reference answer, the student's answer, test cell: visible part, hidden part)
EXERCISES = [
    ("square", "def square(x):\n    return x * x\n", "def square(x):\n    return x ** 2\n",
     'with Check("square") as check:\n    check.equal(square(3), 9, "square(3) is 9.")\n',
     'assert square(-4) == 16, "square of a negative number"\n'),
    ("halve", "def halve(x):\n    return x / 2\n", "def halve(x):\n    return x // 2\n",
     'with Check("halve") as check:\n    check.equal(halve(3), 1.5, "halve(3) is 1.5: true division.")\n',
     'assert halve(5) == 2.5\n'),
    ("parse", "def parse(text):\n    return dict(kv.split('=') for kv in text.split(','))\n",
     "def parse(text):\n    table = {}\n    return table[text]\n",
     'with Check("parse") as check:\n    got = check.call(parse, "a=1")\n'
     '    check.equal(got, {"a": "1"}, "parse reads key=value pairs.")\n',
     'assert parse("a=1,b=2") == {"a": "1", "b": "2"}\n'),
    ("later", "def later(x):\n    return x + 1\n", None,
     'with Check("later") as check:\n    check.equal(check.call(later, 1), 2, "later(1) is 2.")\n', ""),
    ("double", "def double(x):\n    return 2 * x\n", "def double(x):\n    return 2 * x if x > 0 else x\n",
     'with Check("double") as check:\n    check.equal(double(2), 4, "double(2) is 4.")\n',
     'with requirement("double works for negative numbers too"):\n'
     '    _got = double(-3)\n    assert _got == -6, f"double(-3) gave {_got}"\n'),
    ("timed_batches",
     "def timed_batches(batches, warmup):\n    if warmup >= len(batches):\n"
     "        raise ValueError('warmup must be less than the number of batches')\n"
     "    return len(batches) - warmup\n",
     "def timed_batches(batches, warmup):\n    for i, _ in enumerate(batches):\n        if i == warmup:\n"
     "            start = i\n    return len(batches) - start\n",
     'with Check("timed_batches") as check:\n'
     '    check.equal(timed_batches([1, 2, 3], 1), 2, "3 batches, 1 warm-up.")\n',
     'with requirement("timed_batches raises ValueError when warmup >= len(batches)"):\n'
     '    try:\n        timed_batches([1, 2], 5)\n    except ValueError:\n        pass\n'
     '    else:\n        raise AssertionError("no ValueError")\n'),
    ("negate", "def negate(x):\n    return -x\n", "def negate(x):\n    return -abs(x)\n",
     'with Check("negate") as check:\n    check.equal(negate(2), -2, "negate(2) is -2.")\n',
     'assert negate(-2) == 2, "negate(-2) is 2"\n'),
]


POINTS = 1


def probe_source() -> nbformat.NotebookNode:
    """The assignment as the instructor writes it (nbgrader's markers in the answer and test cells)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell("# A probe of the checks' output"))
    nb.cells.append(nbformat.v4.new_code_cell("from gpucourse.checks import Check, requirement\n"))
    for name, reference, _, visible, hidden in EXERCISES:
        body = "\n".join("    " + line for line in reference.splitlines()[1:])
        answer = f"{reference.splitlines()[0]}\n    ### BEGIN SOLUTION\n{body}\n    ### END SOLUTION\n"
        cell = nbformat.v4.new_code_cell(answer)
        cell.metadata["nbgrader"] = {"grade": False, "grade_id": name, "locked": False, "schema_version": 3,
                                     "solution": True}
        nb.cells.append(cell)
        test = visible + (f"### BEGIN HIDDEN TESTS\n{hidden}### END HIDDEN TESTS\n" if hidden else "")
        cell = nbformat.v4.new_code_cell(test)
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": f"test_{name}", "locked": True,
                                     "points": POINTS, "schema_version": 3, "solution": False}
        nb.cells.append(cell)
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The probe graded by nbgrader for one student: (course root, autograded notebook, {test: score})."""
    from nbgrader.api import Gradebook

    from graders import course
    from graders.paths import COURSE_ID

    work = tmp_path_factory.mktemp("probe")
    solutions = work / "solutions"
    solutions.mkdir()
    nbformat.write(probe_source(), str(solutions / f"{NAME}.ipynb"))
    root = work / "course"
    course.create(root, [NAME], solutions=solutions)
    submission = nbtools.read(root / "release" / NAME / f"{NAME}.ipynb")
    students = {name: answer for name, _, answer, _, _ in EXERCISES}
    for cell in submission.cells:
        answer = students.get(nbtools.grade_id(cell))
        if nbtools.is_solution_cell(cell) and answer is not None:
            cell.source = answer
    target = root / "submitted" / "alice" / NAME / f"{NAME}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(submission, str(target))
    result = course.api(root).autograde(NAME, "alice", force=True, create=True)
    assert result["success"], result["log"]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        sub = gb.find_submission_notebook(NAME, NAME, "alice")
        scores = {g.name: g.score for g in sub.grades if g.max_score}
    return root, nbtools.read(root / "autograded" / "alice" / NAME / f"{NAME}.ipynb"), scores


def outputs(nb, test: str) -> tuple[str, list[dict]]:
    cell = next(c for c in nb.cells if nbtools.grade_id(c) == test)
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    return text, [o for o in cell.outputs if o.output_type == "error"]


def test_a_failing_check_shows_its_fail_line_only_and_nbgrader_scores_it_zero(graded):
    _, nb, scores = graded
    assert scores == {"test_square": POINTS, **{f"test_{n}": 0 for n, *_ in EXERCISES if n != "square"}}
    expected = {"test_halve": "[FAIL] halve: halve(3) is 1.5: true division. (got 1)",
                "test_parse": "[FAIL] parse: your code raised KeyError: 'a=1' (in `parse`, line 3 of its cell)",
                "test_later": "[TODO] later: not answered yet. Replace `raise NotImplementedError()` with your "
                              "code, run that cell, then run this one again."}
    for test, line in expected.items():
        text, errors = outputs(nb, test)
        assert [e["traceback"] for e in errors] == [[line]], f"{test}: the error output is its one line"
        assert "[FAIL]" not in text and "[TODO]" not in text, f"{test}: the hint is not printed twice"
    _, errors = outputs(nb, "test_timed_batches")  # a hidden failure names its requirement, not UnboundLocalError
    assert errors[0]["ename"] == "RequirementFailed"
    assert errors[0]["evalue"].startswith("timed_batches raises ValueError when warmup >= len(batches) (your code "
                                          "raised UnboundLocalError")
    assert outputs(nb, "test_square") == ("[PASS] square: the visible checks pass. The autograder checks more "
                                          "cases (fresh inputs, edge cases) when you hand in.\n", [])


def test_feedback_says_more_was_checked_under_a_visible_pass(graded, tmp_path):
    from graders.export import feedback

    root, _, _ = graded
    pages, refused = feedback.student_feedback(root, tmp_path, [NAME])
    assert refused == [] and [p.parent.parent.name for p in pages] == ["alice"]
    page = pages[0].read_text(encoding="utf-8")
    plain = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))
    more = feedback.MORE_CHECKED.strip()
    for found in ["double works for negative numbers too (double(-3) gave -3)",
                  "timed_batches raises ValueError when warmup >= len(batches) (your code raised UnboundLocalError",
                  "AssertionError: negate(-2) is 2"]:
        assert f"{more} {found}" in plain, found
    # once per hidden failure under a [PASS]; never under a visible check's own [FAIL]
    assert plain.count(more) == 3 and "[FAIL] halve: halve(3) is 1.5" in plain and "[PASS] double" in plain
    assert "BEGIN HIDDEN TESTS" not in plain and "_got == -6" not in plain and "negate(-2) == 2" not in plain
