"""Each graded function's contract, sentence by sentence, and how each sentence is checked (issue 35).

The visible checks are written from the docstring clause by clause. The fixtures cell of an exercise (see
:mod:`graders.authoring.fixtures`) ends with the list that says so, one line per clause::

    **clauses of `pick_device`**
    - "CUDA comes before MPS when both are reported.": visible "CUDA comes first" by `mps-first`
    - "torch.accelerator may be used instead": allows `accelerator-api`, `accelerator-or-cpu`
    - "is faster than the CPU": hidden-only (<why no visible check can show it>) by `some-mistake`
    - "This is what the next section uses.": no requirement (<why the sentence asks nothing of the answer>)

A clause quotes (part of) a docstring sentence, whitespace aside. Every sentence of the answer cell's docstrings
must be quoted by at least one clause. Its kinds:

- ``visible "<hint>" by `mistake`...``: the visible check has an assertion whose hint contains ``<hint>``, and each
  named mistake breaks only that clause: the judge shows its visible check failing with that hint, and its hidden
  tests failing on their own (:meth:`graders.qa.judge.Verdict.hidden_problem`);
- ``hidden-only (<reason>) by `mistake`...``: no visible assertion, for the reason given (it would give the answer
  away, or take too long); the named mistakes show the hidden tests failing on their own;
- ``allows `alternative`...``: a reading or a freedom the sentence grants; each named alternative uses it and keeps
  full marks;
- ``no requirement (<reason>)``: the sentence explains and asks nothing of the answer.

:func:`problems` checks the list against the source (no kernel: the unit tier); :func:`verdict_problems` checks it
against the judge's verdicts (the judge tier).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from graders import nbtools

HEADING = re.compile(r"^\*\*clauses of `([^`]+)`\*\*")
LINE = re.compile(r'^- "(?P<quote>.+)": (?P<kind>visible|hidden-only|allows|no requirement)\b\s*(?P<rest>.*)$')
KEYS = re.compile(r"`([^`]+)`")
#: a sentence ends at ., ! or ? and a space, unless an abbreviation ends there ("e.g. torch")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.")


@dataclass(frozen=True)
class Clause:
    cell: str              # the answer cell whose docstring it quotes
    quote: str             # whitespace-normalised
    kind: str              # "visible", "hidden-only", "allows" or "no requirement"
    hint: str = ""         # visible: what the visible check's hint contains
    keys: tuple[str, ...] = ()  # the mistakes (visible, hidden-only) or alternatives (allows) that prove it
    reason: str = ""       # hidden-only, no requirement: why

    def label(self) -> str:
        return f'{self.cell} "{_short(self.quote)}"'


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def normalise(text: str) -> str:
    return " ".join(text.split())


def sentences(docstring: str) -> list[str]:
    found: list[str] = []
    for piece in SENTENCE_END.split(normalise(docstring)):
        if found and found[-1].lower().endswith(ABBREVIATIONS):
            found[-1] += " " + piece
        elif piece:
            found.append(piece)
    return found


def docstrings(answer: str) -> list[str]:
    """The docstrings of the functions and classes an answer cell defines (methods included)."""
    found = []
    for node in ast.walk(nbtools.parse_python(answer)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = ast.get_docstring(node)
            if text:
                found.append(text)
    return found


class ClauseError(ValueError):
    pass


def parse(text: str, cell: str) -> list[Clause] | None:
    """The clauses a fixtures cell lists for ``cell``; None where it has no clause list."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if HEADING.match(line)), None)
    if start is None:
        return None
    named = HEADING.match(lines[start]).group(1)
    if named != cell:
        raise ClauseError(f"the clause list of the fixtures cell for {cell} is headed `{named}`")
    clauses = []
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        match = LINE.match(line.strip())
        if not match:
            if line.startswith("- "):
                raise ClauseError(f"{cell}: a clause line must read - \"<quote>\": visible|hidden-only|allows|"
                                  f"no requirement ...: {line!r}")
            break  # the list ended
        clauses.append(_clause(cell, match))
    return clauses


def _clause(cell: str, match: re.Match) -> Clause:
    quote, kind, rest = normalise(match["quote"]), match["kind"], match["rest"].strip()
    if kind == "visible":
        hint = re.match(r'^"([^"]+)"\s+by\s+(.*)$', rest)
        if not hint:
            raise ClauseError(f'{cell} "{quote}": write visible "<words of the hint>" by `<mistake>`')
        return Clause(cell, quote, kind, hint=hint[1], keys=tuple(KEYS.findall(hint[2])))
    if kind == "allows":
        return Clause(cell, quote, kind, keys=tuple(KEYS.findall(rest)))
    end = _closing(rest)
    if end is None:
        raise ClauseError(f'{cell} "{quote}": write {kind} (<reason>)')
    return Clause(cell, quote, kind, keys=tuple(KEYS.findall(rest[end + 1:])), reason=rest[1:end].strip())


def _closing(text: str) -> int | None:
    """Where the bracket that opens ``text`` closes (brackets inside the reason nest); None if none does."""
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if i == 0 and depth != 1:
            return None
        if depth == 0:
            return i if i > 1 else None
    return None


def for_notebook(name: str) -> dict[str, list[Clause] | None]:
    """``{answer cell: its clauses}`` (None: the cell's fixtures list none)."""
    from graders.authoring.source import fixture_cells, read_text_notebook, reference_answers

    answers = reference_answers(read_text_notebook(name))
    texts = fixture_cells(name)
    return {cell: (parse(texts[cell], cell) if cell in texts else None) for cell in answers}


def problems(name: str) -> list[str]:
    """What is wrong with notebook ``name``'s clause lists, read against its source alone."""
    from graders import alternatives, mistakes
    from graders.authoring.source import read_text_notebook, reference_answers
    from graders.qa.judge import own_tests

    nb = read_text_notebook(name)
    answers = reference_answers(nb)
    tests = {nbtools.grade_id(c): c.source for c in nb.cells if nbtools.is_test_cell(c)}
    own = own_tests(nb)
    known = {"mistake": {m.key: m for m in mistakes.for_notebook(name)},
             "alternative": {a.key: a for a in alternatives.for_notebook(name)}}
    found = []
    for cell, clauses in for_notebook(name).items():
        texts = [normalise(d) for d in docstrings(answers[cell])]
        if clauses is None:
            if texts:
                found.append(f"{name} {cell}: no clause list (**clauses of `{cell}`** in its fixtures cell)")
            continue
        visible = _joined_strings("\n".join(nbtools.strip_hidden(tests[t]) for t in sorted(own[cell])))
        for c in clauses:
            where = f"{name} {c.label()}"
            if not any(c.quote in t for t in texts):
                found.append(f"{where}: the quote is not in the docstring (reworded?)")
            kind = "alternative" if c.kind == "allows" else "mistake"
            if c.kind != "no requirement" and not c.keys:
                found.append(f"{where}: names no {kind} that proves it")
            for key in c.keys:
                fixture = known[kind].get(key)
                if fixture is None or fixture.cell != cell:
                    found.append(f"{where}: no {kind} `{key}` of {cell}")
                elif c.kind == "visible" and fixture.hidden_only:
                    found.append(f"{where}: mistake `{key}` is marked hidden-only, yet proves a visible clause")
            if c.kind == "visible" and normalise(c.hint) not in normalise(visible):
                found.append(f'{where}: no visible check of {cell} has the hint "{c.hint}"')
        quotes = [c.quote for c in clauses]
        for text in texts:
            for sentence in sentences(text):
                if not any(q in sentence or sentence in q for q in quotes):
                    found.append(f'{name} {cell}: no clause quotes the sentence "{_short(sentence, 90)}"')
    return found


def _joined_strings(source: str) -> str:
    """``source`` with adjacent string literals joined ("a " "b" reads "a b"), as a hint spread over lines prints."""
    return re.sub(r"([\"'])\s*\n\s*f?([\"'])", "", source)


def verdict_problems(name: str, verdicts) -> list[str]:
    """What the judge's verdicts of notebook ``name`` say against its clauses: a visible clause whose mistake's
    visible check does not fail with the clause's hint, a clause whose mistake the hidden tests alone pass."""
    by_key = {(v.kind, v.key): v for v in verdicts if v.kind in ("mistake", "alternative")}
    found = []
    for clauses in for_notebook(name).values():
        for c in clauses or []:
            for key in c.keys:
                v = by_key.get(("alternative" if c.kind == "allows" else "mistake", key))
                if v is None:
                    continue  # problems() reports it
                where = f"{name} {c.label()} by `{key}`"
                if c.kind == "allows":
                    if v.score != v.max:
                        found.append(f"{where}: the alternative loses points ({v.score:g}/{v.max:g})")
                    continue
                if c.kind == "visible":
                    hints = [v.visible[t] for t in sorted(v.visible) if t in v.own]
                    if not any(normalise(c.hint) in normalise(h) for h in hints):
                        said = hints[0] if hints else "its visible check passes"
                        found.append(f'{where}: the visible check does not fail with "{c.hint}" ({said})')
                if not v.caught_by:
                    found.append(f"{where}: the hidden tests alone pass it")
    return found


def report(name: str, verdicts) -> list[str]:
    """One line per clause: how it is proved, and what the student and the autograder see for its mistake."""
    by_key = {v.key: v for v in verdicts if v.kind == "mistake"}  # the clauses that show a verdict name mistakes
    lines = []
    for clauses in for_notebook(name).values():
        for c in clauses or []:
            head = f"clause {name} {c.label()}: {c.kind}"
            if c.kind in ("visible", "hidden-only"):
                for key in c.keys:
                    v = by_key.get(key)
                    if v is not None:
                        shown = next((v.visible[t] for t in sorted(v.visible) if t in v.own), "-")
                        hidden = v.hidden[v.caught_by[0]] if v.caught_by else "NOT CAUGHT"
                        lines.append(f"{head} by {key}\n        visible: {shown}\n        hidden: {hidden}")
                if c.kind == "hidden-only":
                    lines.append(f"        why hidden-only: {c.reason}")
            elif c.kind == "allows":
                lines.append(f"{head} {', '.join(c.keys)}")
            else:
                lines.append(f"{head} ({c.reason})")
    return lines
