"""``python -m graders judge``: every fixture's score in seconds, without nbgrader.

The fixtures (``graders.mistakes``: each must lose exactly its ``loses``; ``graders.alternatives``:
each must lose nothing) are checked for real by grading packed submissions with nbgrader, which
takes minutes a notebook. This tier executes the solution notebook once in one kernel, in quick
mode (``graders.qa.kernel``), then for the reference and for each fixture puts its answer
cell in place, runs every test cell once, and puts the reference back. It judges the tests, not
the grading pipeline: the static scan, the guard and a re-run of the cells after the answer are
the nbgrader tiers' job.

It also measures what a student sees before grading: for each mistake, the visible part of its
exercise's test cell (what is left once nbgrader removes the hidden tests) is run on its own, and the
verdict records whether it fails and with which hint. A mistake that loses points must be flagged
there, unless its source marks it ``hidden-only`` with the reason (:meth:`Verdict.coverage_problem`).
"""

from __future__ import annotations

import ast
import hashlib
import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from graders import alternatives, mistakes, nbtools
from graders.authoring.fixtures import FixtureAnswer
from graders.authoring.source import reference_answers
from graders.limits import Limits
from graders.paths import REPO
from graders.qa.kernel import KernelCallError, SolutionKernel, solution_kernel, solution_notebook
from graders.qa.reach import Reach, changed

#: every fixture's score as recorded, one file per notebook (``python -m graders judge NB --record``);
#: ``tests/judge/test_judge.py`` checks that the judge still gives each of them
SCORES = REPO / "tests" / "data" / "fixture_scores"


@dataclass(frozen=True)
class Fixture:
    kind: str                 # "mistake", "alternative" or "mutant" (graders.qa.mutants: judged as a mistake)
    answer: FixtureAnswer     # a Mistake or an Alternative (which loses nothing)

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.answer.key}"


@dataclass
class Verdict:
    notebook: str
    kind: str                       # "reference", "mistake", "alternative" or "mutant"
    key: str
    cell: str | None                # the answer cell it replaces (None: the reference)
    expected: frozenset[str]        # test cells it must fail
    lost: frozenset[str]            # test cells it failed
    score: float
    max: float
    errors: dict[str, str] = field(default_factory=dict)  # failed test (or answer cell) -> first line
    visible: dict[str, str] = field(default_factory=dict)  # test whose visible part failed -> first line
    own: frozenset[str] = frozenset()   # the test cells of its own exercise (those after its answer cell)
    hidden_only: str = ""               # the source's reason why no visible check can flag it
    hidden: dict[str, str] = field(default_factory=dict)  # test whose hidden part, run alone, failed -> first line

    @property
    def must_flag(self) -> frozenset[str]:
        """The tests whose visible part must fail: its own exercise's, where it loses those, else any it loses."""
        return (self.own & self.expected) or self.expected

    @property
    def flagged_by(self) -> list[str]:
        return sorted(set(self.visible) & self.must_flag)

    @property
    def caught_by(self) -> list[str]:
        """The tests it loses whose hidden part alone fails it: where the hidden tests see it without the visible
        check's help (a student may pass the visible check by fitting its inputs)."""
        return sorted(set(self.hidden) & self.expected)

    def hidden_problem(self) -> str | None:
        """A mistake that loses points which no hidden part of the tests it loses fails on its own, or whose hidden
        failure does not name the requirement it broke (a bare error where a ``requirement`` should speak)."""
        if self.kind != "mistake" or not self.expected:
            return None
        if not self.caught_by:
            return (f"{self.notebook} mistake {self.key}: the hidden tests of {_names(self.expected)} pass it on their "
                    "own (only the visible check sees it): add a hidden assert on fresh inputs for its clause")
        unnamed = [t for t in self.caught_by if not self.hidden[t].startswith(NAMED)]
        if len(unnamed) == len(self.caught_by):
            return (f"{self.notebook} mistake {self.key}: the hidden failure names no requirement "
                    f"({self.hidden[unnamed[0]]}): state it with gpucourse.checks.requirement")
        return None

    def coverage_problem(self) -> str | None:
        """A mistake that loses points yet no visible check flags (and is not marked hidden-only)."""
        if self.kind != "mistake" or not self.expected or self.hidden_only or self.flagged_by:
            return None
        elsewhere = sorted(set(self.visible) - self.must_flag)
        return (f"{self.notebook} mistake {self.key}: the visible check of {_names(self.must_flag)} passes it"
                + (f" (only {_names(elsewhere)}'s visible check fails: a student is sent to the wrong exercise)"
                   if elsewhere else "") + "; flag it there, or mark it hidden-only (<why>) in the source")

    def problem(self) -> str | None:
        if self.lost == self.expected:
            return None
        wrong = [f"{t} passed" for t in sorted(self.expected - self.lost)]
        wrong += [f"{t} failed ({self.errors.get(t, '?')})" for t in sorted(self.lost - self.expected)]
        return (f"{self.notebook} {self.kind} {self.key}: must lose {_names(self.expected)}, "
                f"lost {_names(self.lost)}: " + "; ".join(wrong))


#: how a hidden test's failure that names its requirement starts (``gpucourse.checks.requirement``)
NAMED = "RequirementFailed: "


def hidden_part(source: str) -> str:
    """The hidden tests of a test cell, as one piece of code that runs after its visible part (blank where none)."""
    blocks = nbtools.HIDDEN_BLOCK.findall(source)
    return "\n".join(textwrap.dedent(b) for b in blocks)


def _parts_compose(source: str) -> bool:
    """True when a test cell is its visible part followed by at most one hidden block, so that running the two parts
    one after the other is running the cell."""
    blocks = nbtools.HIDDEN_BLOCK.findall(source)
    if not blocks:
        return True
    end = source.rfind("### END HIDDEN TESTS")
    return len(blocks) == 1 and not source[end + len("### END HIDDEN TESTS"):].strip()


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


def _judge_case(kernel: SolutionKernel, answers: dict[str, str], tests: dict[str, str],
                visible: dict[str, str] | None = None, hidden: dict[str, str] | None = None
                ) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Put ``answers`` in place, run the ``visible`` parts (alone, first), then the ``hidden`` parts alone (each
    after its visible part has set up its names), then the tests, and bring the reference back (even when a call
    broke); ``({failed test: error}, {test whose visible part failed: error},
    {test whose hidden part failed: error})``."""
    try:
        answer_errors = kernel.call("begin_case", answers)
        seen = _run_tests(kernel, visible or {})
        caught = _run_tests(kernel, hidden or {})
        # a test cell whose parts were just run, visible then hidden, fails as its first failing part would: running
        # it whole again would repeat its properties' draws (the judge's largest cost) for the same verdict
        composed = {t for t in tests if t in (visible or {}) and _parts_compose(tests[t])
                    and (t in (hidden or {}) or not hidden_part(tests[t]))}  # never a hidden part left unrun
        failed = _run_tests(kernel, {t: s for t, s in tests.items() if t not in composed})
        failed.update({t: seen.get(t) or caught[t] for t in composed if t in seen or t in caught})
        failed = {t: failed[t] for t in tests if t in failed}  # in notebook order, as they were run before
        return {**failed, **{f"answer {c}": e for c, e in answer_errors.items()}}, seen, caught
    finally:
        kernel.call("end_case")


def own_tests(nb) -> dict[str, frozenset[str]]:
    """Each answer cell's own test cells: the test cells after it, up to the next answer cell."""
    own: dict[str, set[str]] = {}
    current = None
    for cell in nb.cells:
        if nbtools.is_solution_cell(cell) and cell.cell_type == "code":
            current = nbtools.grade_id(cell)
            own[current] = set()
        elif nbtools.is_test_cell(cell) and current is not None:
            own[current].add(nbtools.grade_id(cell))
    return {cell: frozenset(tests) for cell, tests in own.items()}


def _verdict(name, kind, key, cell, expected, errors, points, **seen) -> Verdict:
    lost = frozenset(errors) & set(points)
    total = sum(points.values())
    return Verdict(name, kind, key, cell, frozenset(expected), lost,
                   total - sum(points[t] for t in lost), total, errors, **seen)


def judge_notebook(name: str, exercise: str | None = None, timeout: int | None = None,
                   fixtures: list[Fixture] | None = None, limits: Limits | None = None,
                   progress: Callable[[], object] | None = None) -> list[Verdict]:
    """The reference's verdict, one per fixture (only ``exercise``'s, where given), and the
    reference's again at the end: a fixture that leaks state into later ones shows there.
    ``timeout``: seconds one test cell (or answer cell) may run before it is interrupted and fails
    (default: the grader's per-cell limit, from ``limits``). ``progress``: called once a fixture is judged."""
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
    reach = Reach([(c.source, nbtools.is_test_cell(c)) for c in nb.cells if c.cell_type == "code"])
    reference = reference_answers(nb)
    own = own_tests(nb)
    with solution_kernel(name, timeout, limits) as kernel:
        first, _, _ = _judge_case(kernel, {}, tests)
        verdicts.append(_verdict(name, "reference", "reference", None, (), first, points))
        for f in chosen:
            # a test that reaches no name the two answers define scores as it did for the reference
            names = changed(reference[f.answer.cell], f.answer.code)
            reached = {t: s for t, s in tests.items() if reach.can_change(s, names)}
            errors = {t: e for t, e in first.items() if t in tests and t not in reached}
            visible = ({t: nbtools.strip_hidden(tests[t]) for t in sorted(own[f.answer.cell] | set(f.answer.loses))
                        if t in tests} if f.kind != "alternative" else {})  # a mistake's or a mutant's
            hidden = {t: h for t in visible if (h := hidden_part(tests[t]))}
            failed, seen, caught = _judge_case(kernel, {f.answer.cell: f.answer.code}, reached, visible, hidden)
            errors.update(failed)
            verdicts.append(_verdict(name, f.kind, f.answer.key, f.answer.cell, f.answer.loses, errors, points,
                                     visible=seen, own=own[f.answer.cell], hidden_only=f.answer.hidden_only,
                                     hidden=caught))
            if progress is not None:
                progress()
        verdicts.append(_verdict(name, "reference", "reference-again", None, (),
                                 _judge_case(kernel, {}, tests)[0], points))
    return verdicts


@dataclass(frozen=True)
class Coverage:
    """How many of a notebook's (or the course's) mistakes that lose points its visible checks flag."""
    label: str
    losing: int          # mistakes that lose points
    flagged: int         # of those, flagged by the visible check they must fail
    hidden_only: int     # of those, marked hidden-only in the source

    @classmethod
    def of(cls, label: str, verdicts) -> Coverage:
        losing = [v for v in verdicts if v.kind == "mistake" and v.expected]
        return cls(label, len(losing), sum(bool(v.flagged_by) for v in losing),
                   sum(bool(v.hidden_only) for v in losing))

    def __str__(self) -> str:
        shown = self.losing - self.hidden_only
        def share(n, of):
            return f"{100 * n / of:.0f} %" if of else "-"
        return (f"visible checks {self.label}: {self.flagged}/{shown} flagged ({share(self.flagged, shown)}) of the "
                f"{shown} mistakes not marked hidden-only; {self.hidden_only}/{self.losing} marked hidden-only "
                f"({share(self.hidden_only, self.losing)})")



def fingerprint(code: str) -> str:
    """A fixture's code as the score record knows it: its AST without docstrings (a fixture that only
    rewords the reference's docstring is the same fixture)."""
    tree = nbtools.parse_python(code)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def scores(verdicts, fixtures: list[Fixture]) -> dict[str, dict]:
    """What the record holds for each fixture: its cell, the tests it lost, its score and its code's fingerprint."""
    code = {f.label: f.answer.code for f in fixtures}
    return {f"{v.kind}:{v.key}": {"cell": v.cell, "lost": sorted(v.lost), "score": v.score, "max": v.max,
                                  "ast_sha256": fingerprint(code[f"{v.kind}:{v.key}"])}
            for v in verdicts if v.kind != "reference"}


def record(name: str, verdicts) -> list[str]:
    """Write notebook ``name``'s score record from a whole judge run; what changed, one line per fixture."""
    path = SCORES / f"{name}.json"
    before = json.loads(path.read_text()) if path.exists() else {}
    now = scores(verdicts, fixtures_for(name))
    path.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    return ([f"{name} {k}: added {now[k]}" for k in sorted(set(now) - set(before))]
            + [f"{name} {k}: removed" for k in sorted(set(before) - set(now))]
            + [f"{name} {k}: was {before[k]}, now {now[k]}" for k in sorted(set(now) & set(before))
               if now[k] != before[k]])
