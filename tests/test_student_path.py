"""An untouched student notebook, run top to bottom, shows [TODO] and never a raw traceback.

A student who has not answered anything yet runs every cell in order. The exercise cells only define
their skeletons (a skeleton that raises when its cell runs, instead of when it is called, is a raw
traceback too), the visible test cells fail (that is how nbgrader scores 0) with the one line
``[TODO] <exercise>: ...`` in place of a traceback, and every demonstration that needs an unfinished
exercise says which one and skips: no error output anywhere else, no ``[FAIL]``.
"""

from __future__ import annotations

import ast
import os
import sys
import textwrap

import nbformat
import pytest
from nbclient import NotebookClient

from gpucourse.checks import Check, CheckFailed, Unanswered, needs, unfinished
from graders.paths import NOTEBOOKS, notebook_names


def role(cell) -> str:
    """``"skeleton"`` (an exercise), ``"test"`` (a visible test cell) or ``"demo"`` (everything else)."""
    meta = cell.metadata.get("nbgrader", {})
    if meta.get("solution"):
        return "skeleton"
    if meta.get("grade"):
        return "test"
    return "demo"


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
    client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(workdir)}})
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


# -- the pieces, fast: gpucourse.checks on skeletons as nbgrader writes them ------------------------------
SKELETONS = textwrap.dedent('''
    def to_device(batch, device):
        """Move batch to device."""
        # YOUR CODE HERE
        raise NotImplementedError()

    class CompileCounter:
        def __init__(self):
            # YOUR CODE HERE
            raise NotImplementedError()

        def __call__(self, gm, example_inputs):
            # YOUR CODE HERE
            raise NotImplementedError()

    def count_compilations(model):
        counter = CompileCounter()   # finished, but it uses an unfinished exercise
        return len(counter.graphs)

    def on_meta(x):
        raise NotImplementedError("Could not run 'aten::foo' with arguments from the 'Meta' backend")
''')


@pytest.fixture
def skeletons() -> dict:
    namespace: dict = {"__name__": "__main__"}  # as in a notebook's kernel, whose cells are no library's files
    exec(compile(SKELETONS, "<cell>", "exec"), namespace)
    return namespace


def test_needs_skips_while_an_exercise_is_a_skeleton_and_names_it(skeletons, capsys):
    assert not needs("to_device", namespace=skeletons)
    assert not needs("CompileCounter", namespace=skeletons), "a class whose methods are skeletons is unfinished"
    assert not needs("not_run_yet", namespace=skeletons), "an exercise whose cell never ran is unfinished"
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["[SKIP]"] * 3
    assert "`to_device`" in lines[0] and "`CompileCounter`" in lines[1] and "`not_run_yet`" in lines[2]
    assert needs("count_compilations", "on_meta", namespace=skeletons), "answered (even if wrong): the demo runs"
    assert capsys.readouterr().out == ""


def test_unfinished_reads_the_bytecode_without_calling_anything(skeletons):
    assert unfinished(skeletons["to_device"]) and unfinished(skeletons["CompileCounter"]) and unfinished(None)
    assert not unfinished(skeletons["count_compilations"]) and not unfinished(skeletons["on_meta"])
    assert not unfinished({"matmul": "float16"}) and not unfinished(lambda: 1)


def run_check(name, fn, capsys):
    """The lines a student sees when ``fn`` runs inside ``Check(name)``: printed, then the error's rendering."""
    with pytest.raises(NotImplementedError) as caught:
        with Check(name) as check:
            check.call(fn)
    return capsys.readouterr().out + "\n".join(caught.value._render_traceback_()), caught.value


def test_an_untouched_exercise_prints_todo_and_fails_in_one_line(skeletons, capsys):
    out, error = run_check("to_device", lambda: skeletons["to_device"]({}, "cpu"), capsys)
    assert out.startswith("[TODO] to_device: not answered yet") and "[FAIL]" not in out
    assert isinstance(error, Unanswered) and error._render_traceback_() == [f"[TODO] to_device: {error}"]
    out, _ = run_check("CompileCounter", skeletons["CompileCounter"], capsys)
    assert out.startswith("[TODO] CompileCounter: not answered yet"), "a method of the exercise's class"


def test_a_check_points_at_the_unfinished_exercise_it_depends_on(skeletons, capsys):
    out, _ = run_check("count_compilations", lambda: skeletons["count_compilations"](None), capsys)
    assert out.startswith("[TODO] count_compilations: this check runs `CompileCounter`, which is not answered"), out


def test_an_exercise_whose_cell_never_ran_is_todo_not_a_nameerror(capsys):
    with pytest.raises(NotImplementedError) as caught:
        with Check("CUDA_AUTOCAST_ANSWERS"):
            CUDA_AUTOCAST_ANSWERS  # noqa: F821, B018  (its cell was never run)
    out = capsys.readouterr().out + "\n".join(caught.value._render_traceback_())
    assert out.startswith("[TODO] CUDA_AUTOCAST_ANSWERS: `CUDA_AUTOCAST_ANSWERS` is not defined yet"), out
    assert "NameError" not in out


def test_a_real_notimplementederror_is_a_failure_not_a_todo(skeletons):
    with pytest.raises(CheckFailed, match="Meta") as caught:
        with Check("on_meta") as check:
            check.call(skeletons["on_meta"], None)
    assert caught.value._render_traceback_()[0].startswith(
        "[FAIL] on_meta: your code raised NotImplementedError: Could not run")
    from gpucourse import checks

    library: dict = {}  # a library's own bare NotImplementedError is not the student's TODO
    exec(compile("def abstract():\n    raise NotImplementedError()\n", checks.__file__, "exec"), library)
    with pytest.raises(CheckFailed) as caught:
        with Check("uses_library") as check:
            check.call(library["abstract"])
    assert caught.value._render_traceback_()[0].startswith("[FAIL] uses_library: your code raised NotImplementedError")


@pytest.mark.slow
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
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    found = problems(nb)
    ids = {c.metadata.get("nbgrader", {}).get("grade_id", "demo"): c.id for c in nb.cells}
    raw = [line for line in found if "raw traceback" in line]
    assert [line.split(":")[0] for line in raw] == [ids["ANSWERS"], ids["demo"]], found
    assert all("NotImplementedError" in line for line in raw)
    assert any(line.startswith(f"{ids['test_ANSWERS']}: says [FAIL]") for line in found), found
    test_f = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_f")
    assert raw_tracebacks(test_f) == [] and shown(test_f).strip().startswith("[TODO] f: not answered yet")


def exercise_names(nb) -> set[str]:
    """The names the notebook's answer cells define (functions, classes, constants)."""
    names = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and role(cell) == "skeleton":
            for node in ast.parse(cell.source).body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Assign):
                    names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def needed(tree) -> set[str]:
    """The exercise names a cell waits for: passed to needs(...), or read in a ``try`` that catches NameError."""
    names = {arg.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) == "needs"
             for arg in node.args if isinstance(arg, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(getattr(h.type, "id", None) == "NameError" for h in node.handlers):
            names |= {n.id for part in node.body for n in ast.walk(part) if isinstance(n, ast.Name)}
    return names


@pytest.mark.parametrize("name", notebook_names())
def test_every_demo_that_runs_an_answer_waits_for_it(name):
    """Static and fast: a demonstration cell that uses an exercise's answer names it in needs(...)."""
    from graders.paths import SOLUTIONS

    nb = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    exercises = exercise_names(nb)
    missing = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and role(cell) == "demo":
            tree = ast.parse(cell.source)
            used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            if used & exercises - needed(tree):
                missing[cell.id] = sorted(used & exercises - needed(tree))
    assert missing == {}, "wrap these demos in `if needs(...):`"


# -- the whole path, slow: every released notebook, untouched, top to bottom ----------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", notebook_names())
def test_untouched_notebook_runs_without_raw_tracebacks(name, tmp_path, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # quick mode, as the autograder runs it
    nb = run_untouched(name, tmp_path)
    tests = [c for c in nb.cells if c.cell_type == "code" and role(c) == "test"]
    assert tests, "every notebook has visible test cells"
    assert problems(nb) == []


if __name__ == "__main__":  # python tests/test_student_path.py [NAME...]: print what a student meets
    import tempfile

    os.environ.setdefault("NBGRADER_EXECUTION", "autograde")
    total = 0
    for name in sys.argv[1:] or notebook_names():
        with tempfile.TemporaryDirectory() as tmp:
            found = problems(run_untouched(name, tmp))
        total += sum("raw traceback" in line for line in found)
        print(f"== {name}: {len(found)} problem(s)", *found, sep="\n  ", flush=True)
    print(f"raw tracebacks outside skeleton and test cells: {total}")
