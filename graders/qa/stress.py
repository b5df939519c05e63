"""``python -m graders stress [NAMES]``: run every test cell many times against the reference
answers and against each listed mistake, to find hidden tests that pass or fail by chance.

Hidden tests draw fresh random inputs on every grading, so one ``selftest`` run proves little
about the draws it did not make. A chance pass gives a wrong answer its points now and then (08's
``speedup_table`` test once drew values that were already in order, so a student who sorted the
rows lost nothing); a chance failure takes points from a correct one (07 lost 3 points whenever
it drew a batch of 28). This command executes each solution notebook once in one kernel, in quick
mode as the grader does (``graders.qa.kernel``), then in that kernel:

- runs every test cell ``repeats`` times with the reference answers: each run must pass;
- for each mistake, puts the wrong answer in place, runs each test it must lose ``repeats``
  times (each run must fail), then puts the reference answer back.

It is a tool for authors, not part of grading; the test suite runs it on one notebook.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graders import nbtools
from graders.mistakes import Mistake, for_notebook
from graders.paths import notebook_names
from graders.qa.inkernel import run_cases  # noqa: F401 (the kernel's side; the tests call it here)
from graders.qa.kernel import solution_kernel, solution_notebook


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


def cases_for(name: str, mistakes: list[Mistake] | None = None, only: list[str] | None = None) -> list[Case]:
    """The reference case (every test must always pass), then one case per mistake; ``only``: these test cells
    alone (default: every one)."""
    nb = solution_notebook(name)
    tests = {nbtools.grade_id(c): c.source for c in nb.cells
             if nbtools.is_test_cell(c) and (only is None or nbtools.grade_id(c) in only)}
    reference = {nbtools.grade_id(c): nbtools.answer_from_solution(c.source)
                 for c in nb.cells if nbtools.is_solution_cell(c) and c.cell_type == "code"}
    cases = [Case("reference", {}, {}, tests, must_fail=False)]
    for mistake in for_notebook(name) if mistakes is None else mistakes:
        # a correct variant (it loses nothing) must pass every test, as the reference does
        tried = {t: tests[t] for t in mistake.loses if t in tests} if mistake.loses else tests
        cases.append(Case(mistake.key, {mistake.cell: mistake.code}, {mistake.cell: reference[mistake.cell]},
                          tried, must_fail=bool(mistake.loses)))
    return cases


def stress_notebook(name: str, repeats: int, mistakes: list[Mistake] | None = None,
                    timeout: int = 3600, only: list[str] | None = None) -> list[Tally]:
    """Execute ``name``'s solution in quick mode, then the cases; return one tally per (case, test). ``only``: run
    these test cells alone."""
    cases = [c.__dict__ for c in cases_for(name, mistakes, only)]
    with solution_kernel(name, timeout) as kernel:
        return [Tally(**t) for t in kernel.call("stress_cases", cases, repeats)]


def stress(names: list[str] | None, repeats: int, progress=print) -> list[str]:
    """Every chance pass of a mistake and chance failure of a reference answer, as sentences."""
    problems = []
    for name in names or notebook_names():
        tallies = stress_notebook(name, repeats)
        found = [f"{name}/{p}" for p in (t.problem() for t in tallies) if p]
        progress(f"{name}: {len(tallies)} (case, test) pairs x {repeats} runs, {len(found)} problem(s)")
        problems += found
    return problems
