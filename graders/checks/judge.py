"""``python -m graders judge``: every fixture's score in seconds, without nbgrader.

The fixtures (``graders.mistakes``: each must lose exactly its ``loses``; ``graders.alternatives``:
each must lose nothing) are checked for real by grading packed submissions with nbgrader, which
takes minutes a notebook. This tier executes the solution notebook once in one kernel, in quick
mode (``graders.checks.kernel``), then for the reference and for each fixture puts its answer
cell in place, runs every test cell once, and puts the reference back. It judges the tests, not
the grading pipeline: the static scan, the guard and a re-run of the cells after the answer are
the nbgrader tiers' job.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graders import alternatives, mistakes, nbtools
from graders.authoring.source import reference_answers
from graders.checks.kernel import KernelCallError, SolutionKernel, solution_kernel, solution_notebook
from graders.checks.reach import Reach, changed
from graders.mistakes import Mistake


@dataclass(frozen=True)
class Fixture:
    kind: str                 # "mistake" or "alternative"
    answer: Mistake           # an alternative is a Mistake with loses=()

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.answer.key}"


@dataclass
class Verdict:
    notebook: str
    kind: str                       # "reference", "mistake" or "alternative"
    key: str
    cell: str | None                # the answer cell it replaces (None: the reference)
    expected: frozenset[str]        # test cells it must fail
    lost: frozenset[str]            # test cells it failed
    score: float
    max: float
    errors: dict[str, str] = field(default_factory=dict)  # failed test (or answer cell) -> first line

    def problem(self) -> str | None:
        if self.lost == self.expected:
            return None
        wrong = [f"{t} passed" for t in sorted(self.expected - self.lost)]
        wrong += [f"{t} failed ({self.errors.get(t, '?')})" for t in sorted(self.lost - self.expected)]
        return (f"{self.notebook} {self.kind} {self.key}: must lose {_names(self.expected)}, "
                f"lost {_names(self.lost)}: " + "; ".join(wrong))


def _names(tests) -> str:
    return ", ".join(sorted(tests)) or "nothing"


def fixtures_for(name: str) -> list[Fixture]:
    return ([Fixture("mistake", m) for m in mistakes.for_notebook(name)]
            + [Fixture("alternative", a) for a in alternatives.for_notebook(name)])


def answer_cells(nb) -> list[str]:
    return [nbtools.grade_id(c) for c in nb.cells if nbtools.is_solution_cell(c) and c.cell_type == "code"]


def _run_tests(kernel: SolutionKernel, tests: dict[str, str]) -> dict[str, str]:
    """Every test cell once, in notebook order; ``{failed test: first line of its error}``."""
    errors = {}
    for test, source in tests.items():
        try:
            error = kernel.call("run_test", test, source)
        except KernelCallError as exc:  # the judge's own cell broke: the test did not pass either
            error = f"the judge's cell failed: {exc}"
        if error:
            errors[test] = error
    return errors


def _judge_case(kernel: SolutionKernel, answers: dict[str, str], tests: dict[str, str]) -> dict[str, str]:
    """Put ``answers`` in place, run the tests, bring the reference back (even when a call broke)."""
    try:
        answer_errors = kernel.call("begin_case", answers)
        return {**_run_tests(kernel, tests), **{f"answer {c}": e for c, e in answer_errors.items()}}
    finally:
        kernel.call("end_case")


def _verdict(name, kind, key, cell, expected, errors, points) -> Verdict:
    lost = frozenset(errors) & set(points)
    total = sum(points.values())
    return Verdict(name, kind, key, cell, frozenset(expected), lost,
                   total - sum(points[t] for t in lost), total, errors)


def judge_notebook(name: str, exercise: str | None = None, timeout: int | None = None,
                   fixtures: list[Fixture] | None = None) -> list[Verdict]:
    """The reference's verdict, one per fixture (only ``exercise``'s, where given), and the
    reference's again at the end: a fixture that leaks state into later ones shows there.
    ``timeout``: seconds one test cell (or answer cell) may run before it is interrupted and fails
    (default: the grader's per-cell limit)."""
    nb = solution_notebook(name)
    tests = {nbtools.grade_id(c): c.source for c in nb.cells if nbtools.is_test_cell(c)}
    points = nbtools.test_points(nb)
    if exercise is not None and exercise not in answer_cells(nb):
        raise ValueError(f"{name} has no answer cell {exercise!r}; it has {', '.join(answer_cells(nb))}")
    chosen = [f for f in (fixtures_for(name) if fixtures is None else fixtures)
              if exercise is None or f.answer.cell == exercise]
    stray = [f.label for f in chosen if f.answer.cell not in answer_cells(nb)]
    if stray:  # its code would only add names: it would judge nothing
        raise ValueError(f"{name}: {', '.join(stray)} replace(s) no answer cell of the notebook")
    verdicts = []
    reach, reference = Reach([c.source for c in nb.cells if c.cell_type == "code"]), reference_answers(nb)
    with solution_kernel(name, timeout) as kernel:
        first = _judge_case(kernel, {}, tests)
        verdicts.append(_verdict(name, "reference", "reference", None, (), first, points))
        for f in chosen:
            # a test that reaches no name the two answers define scores as it did for the reference
            names = changed(reference[f.answer.cell], f.answer.code)
            reached = {t: s for t, s in tests.items() if reach.can_change(s, names)}
            errors = {t: e for t, e in first.items() if t in tests and t not in reached}
            errors.update(_judge_case(kernel, {f.answer.cell: f.answer.code}, reached))
            verdicts.append(_verdict(name, f.kind, f.answer.key, f.answer.cell, f.answer.loses, errors, points))
        verdicts.append(_verdict(name, "reference", "reference-again", None, (),
                                 _judge_case(kernel, {}, tests), points))
    return verdicts

