"""``python -m graders stress [NAMES]``: run every test cell many times against the reference
answers and against each listed mistake, to find hidden tests that pass or fail by chance.

Hidden tests draw fresh random inputs on every grading, so one ``selftest`` run proves little
about the draws it did not make. A chance pass gives a wrong answer its points now and then (08's
``speedup_table`` test once drew values that were already in order, so a student who sorted the
rows lost nothing); a chance failure takes points from a correct one (07 lost 3 points whenever
it drew a batch of 28). This command executes each solution notebook once in one kernel, in quick
mode as the grader does, then in that kernel:

- runs every test cell ``repeats`` times with the reference answers: each run must pass;
- for each mistake, puts the wrong answer in place, runs each test it must lose ``repeats``
  times (each run must fail), then puts the reference answer back.

It is a tool for authors, not part of grading; the test suite runs it on one notebook.
"""

from __future__ import annotations

import inspect
import json
import os
import tempfile
import textwrap
from dataclasses import dataclass, field
from unittest import mock

from graders import nbtools
from graders.mistakes import Mistake, for_notebook
from graders.paths import SOLUTIONS, notebook_names

MARKER = "STRESS-RESULT "


@dataclass
class Case:
    """One answer set to try: ``answers`` replace answer cells, ``tests`` are run, and each run must
    pass (``must_fail`` False) or fail (True)."""
    label: str
    answers: dict[str, str]
    restore: dict[str, str]
    tests: dict[str, str]
    must_fail: bool


@dataclass
class Tally:
    label: str
    test: str
    must_fail: bool
    runs: int = 0
    wrong: int = 0                              # runs whose outcome was the other one
    examples: list[str] = field(default_factory=list)  # the first messages of chance failures

    def problem(self) -> str | None:
        if not self.wrong:
            return None
        outcome = "passed" if self.must_fail else "failed"
        detail = f": {self.examples[0]}" if self.examples else ""
        return f"{self.label}: {self.test} {outcome} in {self.wrong} of {self.runs} runs{detail}"


def run_cases(cases: list[dict], repeats: int, namespace: dict) -> list[dict]:
    """Run in the kernel (sent there as source): try each case's tests ``repeats`` times.

    Self-contained on purpose: it is shipped to the kernel with ``inspect.getsource``.
    """
    import contextlib
    import io
    import warnings

    results = []
    for case in cases:
        for source in case["answers"].values():
            exec(compile(source, f"<answer of {case['label']}>", "exec"), namespace)
        for test, source in case["tests"].items():
            code = compile(source, f"<{test}>", "exec")
            tally = {"label": case["label"], "test": test, "must_fail": case["must_fail"], "runs": 0,
                     "wrong": 0, "examples": []}
            for _ in range(repeats):
                error = None
                sink = io.StringIO()
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
                        warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        exec(code, namespace)
                    except KeyboardInterrupt:  # the author stopped the run
                        raise
                    except BaseException as exc:  # a failed check, an assert, or anything the test raised
                        error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
                tally["runs"] += 1
                if (error is None) == case["must_fail"]:
                    tally["wrong"] += 1
                    if error and len(tally["examples"]) < 3:  # what a chance failure said
                        tally["examples"].append(error)
            results.append(tally)
        for source in case["restore"].values():
            exec(compile(source, f"<reference for {case['label']}>", "exec"), namespace)
    return results


def cases_for(name: str, mistakes: list[Mistake] | None = None) -> list[Case]:
    """The reference case (every test must always pass), then one case per mistake."""
    nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    tests = {nbtools.grade_id(c): c.source for c in nb.cells if nbtools.is_test_cell(c)}
    reference = {nbtools.grade_id(c): nbtools.answer_from_solution(c.source)
                 for c in nb.cells if nbtools.is_solution_cell(c) and c.cell_type == "code"}
    cases = [Case("reference", {}, {}, tests, must_fail=False)]
    for mistake in for_notebook(name) if mistakes is None else mistakes:
        # a correct variant (it loses nothing) must pass every test, as the reference does
        tried = {t: tests[t] for t in mistake.loses} if mistake.loses else tests
        cases.append(Case(mistake.key, {mistake.cell: mistake.code}, {mistake.cell: reference[mistake.cell]},
                          tried, must_fail=bool(mistake.loses)))
    return cases


def driver_source(cases: list[Case], repeats: int) -> str:
    """The cell appended to the notebook: it runs the cases and prints the tallies as one JSON line."""
    payload = json.dumps([c.__dict__ for c in cases])
    return "\n".join([
        textwrap.dedent(inspect.getsource(run_cases)),
        f"_stress_cases = __import__('json').loads({payload!r})",
        f"print({MARKER!r} + __import__('json').dumps(run_cases(_stress_cases, {repeats}, globals())))",
    ])


def stress_notebook(name: str, repeats: int, mistakes: list[Mistake] | None = None,
                    timeout: int = 3600) -> list[Tally]:
    """Execute ``name``'s solution in quick mode, then the driver; return one tally per (case, test)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
    nb.cells.append(nbformat.v4.new_code_cell(driver_source(cases_for(name, mistakes), repeats)))
    with mock.patch.dict(os.environ, {"COURSE_QUICK": "1", "MPLBACKEND": "Agg"}), \
            tempfile.TemporaryDirectory(prefix=f"stress-{name}-") as work:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                       resources={"metadata": {"path": work}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout")
    line = next(ln for ln in text.splitlines() if ln.startswith(MARKER))
    return [Tally(**t) for t in json.loads(line[len(MARKER):])]


def stress(names: list[str] | None, repeats: int, progress=print) -> list[str]:
    """Every chance pass of a mistake and chance failure of a reference answer, as sentences."""
    problems = []
    for name in names or notebook_names():
        tallies = stress_notebook(name, repeats)
        found = [f"{name}/{p}" for p in (t.problem() for t in tallies) if p]
        progress(f"{name}: {len(tallies)} (case, test) pairs x {repeats} runs, {len(found)} problem(s)")
        problems += found
    return problems
