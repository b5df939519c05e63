"""The pieces of the student path, fast: gpucourse.checks on skeletons as nbgrader writes them, and every
demonstration that needs an exercise says so. The untouched notebooks, run top to bottom:
tests/e2e/gpucourse/test_student_path_e2e.py."""

from __future__ import annotations

import ast
import textwrap

import nbformat
import pytest

from gpucourse.checks import Check, CheckFailed, Unanswered, needs, unfinished
from graders.paths import notebook_names
from tests.helpers.cells import role

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

