"""``python -m graders judge --mutate``: how strong the tests are, measured on generated mutants of the references.

Each answer cell's reference is changed one small way at a time (``graders.qa.mutation_ops``); each mutant is
judged as a catalogued mistake is (:func:`graders.qa.judge.judge_notebook`, kind "mutant": one kernel per
notebook, every test cell it can reach run, and the visible and the hidden part of its own exercise's test cells
each run alone). A mutant is killed when it loses points in the tests as graded; what the issue asks is that the
hidden tests alone kill it (a student may fit the visible checks' inputs) and that the visible checks flag it.

A mutant no test can kill because it does what the reference does on every input the contract admits is
equivalent: ``tests/data/equivalent_mutants.toml`` records each, keyed by :attr:`Mutant.key`, with the reason a
reader can check. docs/mutants.md says how to read the report and how to record one.
"""

from __future__ import annotations

import ast
import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from graders import nbtools
from graders.errors import InputError
from graders.mistakes import Mistake
from graders.paths import REPO
from graders.qa.judge import Fixture, Verdict, fingerprint
from graders.qa.mutation_ops import OPERATORS, mutate

EQUIVALENTS = REPO / "tests" / "data" / "equivalent_mutants.toml"
#: a full run judges every mutant of a cell up to this many (spread over the operators); --max-per-cell changes it
MAX_PER_CELL = 40


@dataclass(frozen=True)
class Mutant:
    notebook: str
    cell: str          # the answer cell it replaces
    operator: str      # the name in mutation_ops.OPERATORS
    code: str          # the whole cell as a student would type it
    change: str        # what differs from the reference, on one line

    @property
    def key(self) -> str:
        """Stable while the reference and the operator stay: the code's AST, docstrings aside, hashed."""
        return f"{self.notebook}/{self.cell}/{self.operator}/{fingerprint(self.code)}"

    def fixture(self) -> Fixture:
        """As the judge takes it: a mistake that names no test cell it must lose (what it loses is reported), so that
        the visible and the hidden part of its own exercise's test cells are run alone too."""
        return Fixture("mutant", Mistake(self.key, self.cell, self.code, ()))


def _window(old: str, new: str, context: int = 24) -> tuple[str, str]:
    """The part of two versions of a line that differs, with ``context`` characters around it ("..." where cut)."""
    prefix = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    start, tail = max(0, prefix - context), max(0, suffix - context)
    def cut(text):
        return ("..." if start else "") + text[start:len(text) - tail] + ("..." if tail else "")
    return cut(old), cut(new)


def change(reference: str, mutant: str, width: int = 90, context: int = 24) -> str:
    """One line: ``L<n>: -<old> +<new>`` per changed stretch (``L<n> twice: +<line>`` for a repeated line,
    ``after L<n>: +<new>`` for other lines added; a changed line
    cut to the part that differs; several lines joined with " / "), each side at most ``width`` characters; ``n``
    counts the reference's lines as :func:`ast.unparse` writes them, docstring included."""
    # lines compared without their indentation: a block's body kept without its ``with`` reads as one line dropped
    old, new = [line.strip() for line in reference.splitlines()], [line.strip() for line in mutant.splitlines()]
    parts = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 - i1 == j2 - j1 == 1:
            before, after = _window(old[i1], new[j1], context)
        else:
            before, after = " / ".join(old[i1:i2]), " / ".join(new[j1:j2])
        sides = [text if len(text) <= width else text[:width - 3] + "..." for text in (before, after)]
        if tag == "insert":
            added = new[j1:j2]
            # a repeated statement: difflib may align the copy on either side of the original
            twice = next((k for k in (i1, i1 - len(added)) if k >= 0 and old[k:k + len(added)] == added), None)
            parts.append(f"L{twice + 1} twice: +{sides[1]}" if twice is not None else f"after L{i1}: +{sides[1]}")
        else:
            parts.append(f"L{i1 + 1}: -{sides[0]} +{sides[1] or '(nothing)'}")
    return "; ".join(parts)


def mutants_of(notebook: str, cell: str, code: str) -> list[Mutant]:
    """Every mutant of one reference answer: one change each, none the same code as another (the first operator's
    name kept) or as the reference, none that does not compile; in operator order, then site order."""
    reference = ast.unparse(nbtools.parse_python(code))
    seen, found = {reference}, []
    for operator, mutated in mutate(code):
        if mutated in seen:
            continue
        seen.add(mutated)
        try:
            compile(mutated, f"<mutant of {cell}>", "exec")
        except SyntaxError:  # e.g. a ``return`` dropped from where it alone made the block non-empty
            continue
        found.append(Mutant(notebook, cell, operator, mutated, change(reference, mutated)))
    return found


def sample(mutants: list[Mutant], cap: int | None) -> list[Mutant]:
    """At most ``cap`` of ``mutants`` (all where ``cap`` is None): the operators take turns for the places, so a
    cell's rare operators are all judged, and each operator's share is spread evenly over its mutants (the cell's
    first lines are not favoured); in the given order. The same list and cap give the same sample."""
    if cap is None or len(mutants) <= cap:
        return list(mutants)
    by_operator: dict[str, list[int]] = {}
    for i, m in enumerate(mutants):
        by_operator.setdefault(m.operator, []).append(i)
    quota = dict.fromkeys(by_operator, 0)
    left = cap
    while left:
        for operator, members in by_operator.items():
            if left and quota[operator] < len(members):
                quota[operator] += 1
                left -= 1
    chosen = {members[k * len(members) // quota[op]] for op, members in by_operator.items()
              for k in range(quota[op])}
    return [mutants[i] for i in sorted(chosen)]


@dataclass(frozen=True)
class Outcome:
    """How the tests treat one mutant."""

    mutant: Mutant
    verdict: Verdict
    equivalent: str = ""   # the recorded reason, where it is equivalent

    @property
    def killed(self) -> bool:
        """It loses points in the tests as graded (an answer cell that raises counts only through a test it fails)."""
        return bool(self.verdict.lost)

    @property
    def hidden(self) -> bool:
        """The hidden part of one of its own exercise's test cells, run alone, fails it."""
        return bool(set(self.verdict.hidden) & self.verdict.own)

    @property
    def flagged(self) -> bool:
        """The visible part of one of its own exercise's test cells (what the student runs) fails it."""
        return bool(set(self.verdict.visible) & self.verdict.own)

    @property
    def mark(self) -> str:
        """``ok`` (hidden tests alone and visible checks fail it), ``equivalent``, ``stale`` (recorded as equivalent
        yet it loses points), ``SURVIVES`` (loses nothing), ``HIDDEN-MISS`` (only outside the hidden tests), or
        ``UNSEEN`` (the hidden tests catch it, no visible check flags it)."""
        if self.equivalent:
            return "stale" if self.killed else "equivalent"
        if not self.killed:
            return "SURVIVES"
        if not self.hidden:
            return "HIDDEN-MISS"
        return "ok" if self.flagged else "UNSEEN"

    def line(self) -> str:
        m = self.mutant
        text = f"{self.mark:11} {m.cell:22} {m.operator:16} {m.change}"
        if self.mark == "equivalent":
            text += f"\n            ({self.equivalent})"
        elif self.mark == "stale":
            text += f"\n            recorded as equivalent but loses {', '.join(sorted(self.verdict.lost))}: " \
                    f"remove [{m.key!r}] from {EQUIVALENTS.name}"
        elif self.mark in ("SURVIVES", "HIDDEN-MISS"):
            text += f"\n            key {m.key}"
        return text


@dataclass(frozen=True)
class Tally:
    """One row of the summary: a notebook's (or every notebook's) mutants, counted as judged."""

    label: str
    generated: int
    judged: int          # after the cap
    killed: int          # lose points in the tests as graded
    hidden: int          # of the non-equivalent ones, failed by the hidden tests alone
    flagged: int         # of the non-equivalent ones, flagged by the visible checks
    equivalent: int
    survivors: int       # non-equivalent ones that lose nothing

    @classmethod
    def of(cls, label: str, generated: int, outcomes: list[Outcome]) -> Tally:
        real = [o for o in outcomes if not o.equivalent]
        return cls(label, generated, len(outcomes), sum(o.killed for o in outcomes), sum(o.hidden for o in real),
                   sum(o.flagged for o in real), len(outcomes) - len(real), sum(not o.killed for o in real))

    @staticmethod
    def header() -> str:
        return (f"{'notebook':16} {'generated':>9} {'judged':>6} {'killed':>6} {'hidden-alone':>14} "
                f"{'visible-flagged':>15} {'equivalent':>10} {'survivors':>9}")

    def row(self) -> str:
        real = self.judged - self.equivalent
        def share(n):
            return f"{n:4} {100 * n / real:3.0f}%" if real else f"{n:4}    -"
        return (f"{self.label:16} {self.generated:9} {self.judged:6} {self.killed:6} {share(self.hidden):>14} "
                f"{share(self.flagged):>15} {self.equivalent:10} {self.survivors:9}")


def judge_mutants(name: str, chosen: list[Mutant], equivalents: dict[str, str], timeout: int | None = None,
                  limits=None, progress=None) -> tuple[list[Outcome], list[str]]:
    """``chosen`` (mutants of notebook ``name``) judged in one kernel; their outcomes, and what went wrong with the
    reference: it must keep full marks before and after them all (a mutant that leaks state shows in the second)."""
    from graders.qa.judge import judge_notebook

    verdicts = judge_notebook(name, timeout=timeout, fixtures=[m.fixture() for m in chosen], limits=limits,
                              progress=progress)
    by_key = {v.key: v for v in verdicts if v.kind == "mutant"}
    broken = [f"{name} {v.key}: {v.score:g}/{v.max:g}, lost {', '.join(sorted(v.lost))}"
              for v in verdicts if v.kind == "reference" and v.score != v.max]
    return [Outcome(m, by_key[m.key], equivalents.get(m.key, "")) for m in chosen], broken


def notebook_mutants(name: str, exercise: str | None = None) -> dict[str, list[Mutant]]:
    """``{answer cell: its mutants}`` for notebook ``name`` (only ``exercise``'s cell, where given)."""
    from graders.authoring.source import reference_answers
    from graders.qa.judge import answer_cells
    from graders.qa.kernel import solution_notebook

    nb = solution_notebook(name)
    references = reference_answers(nb)
    return {cell: mutants_of(name, cell, references[cell]) for cell in answer_cells(nb) if exercise in (None, cell)}


def _mutant_key(key: str) -> bool:
    parts = key.split("/")
    return len(parts) == 4 and parts[2] in OPERATORS


def read_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """``{mutant key: why it is equivalent}``: each entry needs a reason, and its key the form of :attr:`Mutant.key`."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: {exc}") from exc
    wrong = [key for key, entry in table.items()
             if not _mutant_key(key) or not isinstance(entry, dict) or not str(entry.get("reason", "")).strip()]
    if wrong:
        raise InputError(f"{path}: {', '.join(map(repr, wrong))}: each needs a mutant key "
                         "(<notebook>/<cell>/<operator>/<ast hash>) and a reason a reader can check")
    return {key: entry["reason"].strip() for key, entry in table.items()}
