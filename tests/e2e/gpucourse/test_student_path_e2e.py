"""An untouched student notebook, run top to bottom, shows [TODO] and never a raw traceback.

A student who has not answered anything yet runs every cell in order. The exercise cells only define
their skeletons (a skeleton that raises when its cell runs, instead of when it is called, is a raw
traceback too), the visible test cells fail (that is how nbgrader scores 0) with the one line
``[TODO] <exercise>: ...`` in place of a traceback, and every demonstration that needs an unfinished
exercise says which one and skips: no error output anywhere else, no ``[FAIL]``.
"""

from __future__ import annotations

import os
import sys

import nbformat
import pytest

from graders.kernel_client import notebook_client
from graders.paths import NOTEBOOKS, notebook_names
from tests.helpers.cells import role


def text_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def errors_of(cell) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for o in cell.outputs if o.output_type == "error"]


#: the exceptions of gpucourse.checks that IPython shows as their one tagged line (``_render_traceback_``)
ONE_LINE = {"CheckFailed": "[FAIL]", "Unanswered": "[TODO]", "RequirementFailed": "[FAIL]"}


def raw_tracebacks(cell) -> list[str]:
    """The cell's error outputs that show a traceback, not one of gpucourse.checks' tagged lines."""
    raw = []
    for output in cell.outputs:
        if output.output_type != "error":
            continue
        lines = "\n".join(output.get("traceback", [])).splitlines()
        tag = ONE_LINE.get(output.get("ename"))
        if tag is None or not lines or not lines[0].startswith(tag) or any("Traceback" in ln for ln in lines):
            raw.append(f"{output.get('ename')}: {output.get('evalue')}"[:200] + f" ({len(lines)} lines)")
    return raw


def shown(cell) -> str:
    """What the student reads under the cell: printed text and the error output's lines."""
    errors = ["\n".join(o.get("traceback", [])) for o in cell.outputs if o.output_type == "error"]
    return "\n".join([text_of(cell), *errors])


def images_of(cell) -> int:
    return sum(1 for o in cell.outputs if "image/png" in o.get("data", {}))


def run_untouched(name: str, workdir) -> nbformat.NotebookNode:
    """Execute the released ``notebooks/<name>.ipynb`` as a student would, errors allowed, quick mode."""
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    with notebook_client(nb, workdir, timeout=600, kernel_name="python3", allow_errors=True) as client:
        client.execute()
    return nb


def problems(nb) -> list[str]:
    """Everything a student should not meet in an untouched notebook, one line each."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kind, out = role(cell), shown(cell)
        found += [f"{cell.id}: raw traceback {e}" for e in raw_tracebacks(cell)]
        if kind != "test":
            found += [f"{cell.id}: a {kind} cell fails ({e}) on Run All" for e in errors_of(cell)
                      if e.split(":")[0] in ONE_LINE]
            if "[SKIP]" in out and images_of(cell):
                found.append(f"{cell.id}: skipped, yet drew a figure")
        else:
            if "[TODO]" not in out:
                found.append(f"{cell.id}: shows no [TODO] (showed {out.strip()[:200]!r})")
            if "[FAIL]" in out or "[PASS]" in out:
                found.append(f"{cell.id}: says [FAIL]/[PASS] on an untouched skeleton: {out.strip()[:200]!r}")
            found += [f"{cell.id}: fails with {e}, not the one-line Unanswered of an unfinished exercise"
                      for e in errors_of(cell) if not e.startswith("Unanswered: ")]
            if not errors_of(cell):
                found.append(f"{cell.id}: no error, so nbgrader would give an untouched exercise its points")
    return found


def test_problems_counts_a_skeleton_that_raises_on_run_all(tmp_path):
    """In a real kernel: an answer cell that raises when it runs (04's constant once did) is a raw traceback,
    and so is a demonstration that runs a skeleton; a test cell's [TODO] is its one line, not a traceback."""
    def cell(source, **nbgrader):
        made = nbformat.v4.new_code_cell(source)
        if nbgrader:
            made.metadata["nbgrader"] = {"schema_version": 3, "locked": not nbgrader.get("solution"), **nbgrader}
        return made

    nb = nbformat.v4.new_notebook(cells=[
        cell("from gpucourse.checks import Check\n"),
        cell("ANSWERS = None\n# YOUR CODE HERE\nraise NotImplementedError()\n", grade=False, grade_id="ANSWERS",
             solution=True),
        cell('with Check("ANSWERS") as check:\n    check.that(ANSWERS is not None, "Set ANSWERS.")\n',
             grade=True, grade_id="test_ANSWERS", points=1, solution=False),
        cell("def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()\n", grade=False, grade_id="f",
             solution=True),
        cell('with Check("f") as check:\n    check.call(f)\n', grade=True, grade_id="test_f", points=1,
             solution=False),
        cell("f()\n"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    with notebook_client(nb, tmp_path, timeout=120, kernel_name="python3", allow_errors=True) as client:
        client.execute()
    found = problems(nb)
    ids = {c.metadata.get("nbgrader", {}).get("grade_id", "demo"): c.id for c in nb.cells}
    raw = [line for line in found if "raw traceback" in line]
    assert [line.split(":")[0] for line in raw] == [ids["ANSWERS"], ids["demo"]], found
    assert all("NotImplementedError" in line for line in raw)
    assert any(line.startswith(f"{ids['test_ANSWERS']}: says [FAIL]") for line in found), found
    test_f = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_f")
    assert raw_tracebacks(test_f) == [] and shown(test_f).strip().startswith("[TODO] f: not answered yet")


# -- the whole path, slow: every released notebook, untouched, top to bottom ----------------------------
@pytest.mark.parametrize("name", notebook_names())
def test_untouched_notebook_runs_without_raw_tracebacks(name, tmp_path, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # quick mode, as the autograder runs it
    nb = run_untouched(name, tmp_path)
    tests = [c for c in nb.cells if c.cell_type == "code" and role(c) == "test"]
    assert tests, "every notebook has visible test cells"
    assert problems(nb) == []


if __name__ == "__main__":  # python -m tests.e2e.gpucourse.test_student_path_e2e [NAME...]: print what a student meets
    import tempfile

    os.environ.setdefault("NBGRADER_EXECUTION", "autograde")
    total = 0
    for name in sys.argv[1:] or notebook_names():
        with tempfile.TemporaryDirectory() as tmp:
            found = problems(run_untouched(name, tmp))
        total += sum("raw traceback" in line for line in found)
        print(f"== {name}: {len(found)} problem(s)", *found, sep="\n  ", flush=True)
    print(f"raw tracebacks outside skeleton and test cells: {total}")
