"""An exercise's common mistakes and correct alternatives, as written in its notebook's source.

They live in an author-only markdown cell right after the exercise's tests (cell metadata
``fixtures="<answer cell grade_id>"``); no generated notebook contains it. In JupyterLab the cell reads
as a list of headed code blocks::

    **mistake `device-string`**, sample, loses `test_pick_device`: returns a string, not a torch.device
    ```diff
    @@
     if torch.cuda.is_available():
    -    return torch.device("cuda")
    +    return "cuda"
    ```

    **alternative `ternary`**: one conditional expression
    ```python
    def pick_device() -> torch.device:
        ...
    ```

A mistake is the few lines that differ from the reference answer: hunks in unified-diff form
(`` `` context, ``-`` removed, ``+`` added; ``@@`` starts a hunk). Each hunk's context and removed lines
must occur exactly once in the answer, else the build stops and says which mistake no longer applies.
An alternative is a whole answer, written differently from the reference, that must score full marks.
``sample`` puts a mistake into the sample "mistakes" student (``samples/``). A mistake that loses points
must be flagged by the visible part of its exercise's test cell (``python -m graders judge`` measures it),
unless it says ``hidden-only (<why no visible check can see it>)``, e.g.
``**mistake `hard-coded`**, loses `test_x`, hidden-only (returns the visible inputs' answers): …``.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from graders.errors import InputError

HIDDEN_ONLY = re.compile(r"hidden-only\s*\(([^)]+)\)")
HEADING = re.compile(r"^\*\*(mistake|alternative) `([^`]+)`\*\*([^:]*)(?::\s*(.*))?$")
FENCE = re.compile(r"^```(\w*)\s*$")


class FixtureError(InputError):
    """A fixture that cannot be read, or a mistake that no longer applies to the reference."""

    exit_code = 1  # as the build's own errors


@dataclass(frozen=True)
class FixtureAnswer:
    """What a fixture puts in an exercise's answer cell: a mistake or an alternative."""

    key: str                 # short name, unique within the notebook
    cell: str                # grade_id of the answer cell it replaces
    source: str              # what the student wrote instead of the reference answer

    @property
    def code(self) -> str:
        return textwrap.dedent(self.source).strip("\n") + "\n"


@dataclass(frozen=True)
class Mistake(FixtureAnswer):
    """A common mistake: it must lose exactly the points of the test cells it names."""

    loses: tuple[str, ...]   # grade_ids of the test cells that must fail
    why: str = ""            # the misconception, for people reading the fixtures
    sample: bool = False     # part of the sample "mistakes" student
    hidden_only: str = ""    # why no visible check can flag it (hard-coding, for instance); "" = one must


@dataclass(frozen=True)
class Alternative(FixtureAnswer):
    """A correct answer written differently from the reference: it must score full marks."""

    why: str = ""            # how it differs from the reference

    # An alternative loses nothing; these let the checks treat both kinds alike.
    loses = ()
    sample = False
    hidden_only = ""


def apply_diff(reference: str, diff: str, label: str) -> str:
    """``reference`` with every hunk of ``diff`` applied in order."""
    lines = reference.split("\n")
    for number, hunk in enumerate(_hunks(diff, label), start=1):
        old = [text for mark, text in hunk if mark in " -"]
        new = [text for mark, text in hunk if mark in " +"]
        if not old:
            raise FixtureError(f"{label}: hunk {number} has no context or removed line to find its place")
        if old != new and _code_lines(old) == _code_lines(new):
            raise FixtureError(f"{label}: hunk {number} changes only blank lines or spaces, not the code: "
                               "remove it, or make it change what the answer does")
        at = [i for i in range(len(lines) - len(old) + 1) if lines[i:i + len(old)] == old]
        if len(at) != 1:
            where = "are not in" if not at else f"occur {len(at)} times in"
            raise FixtureError(f"{label} no longer applies: the lines of hunk {number} {where} the reference answer:\n"
                               + "\n".join(old))
        lines[at[0]:at[0] + len(old)] = new
    return "\n".join(lines)


def _code_lines(lines: list[str]) -> list[tuple[int, str]]:
    """What a Python reader sees of ``lines``: each non-blank line's indentation and its words without spaces."""
    return [(len(line) - len(line.lstrip()), "".join(line.split())) for line in lines if line.strip()]


def _hunks(diff: str, label: str) -> list[list[tuple[str, str]]]:
    hunks: list[list[tuple[str, str]]] = [[]]
    for line in diff.split("\n"):
        if line.startswith("@@"):
            hunks.append([])
        elif line == "":
            hunks[-1].append((" ", ""))  # an editor may strip a blank context line's one space
        elif line[0] in " -+":
            hunks[-1].append((line[0], line[1:]))
        else:
            raise FixtureError(f"{label}: a diff line must start with ' ', '-', '+' or '@@': {line!r}")
    for hunk in hunks:
        while hunk and hunk[-1] == (" ", ""):
            hunk.pop()  # blank lines at a hunk's end separate it from the next: they are not context
    return [h for h in hunks if h]


def parse(text: str, cell: str, reference: str) -> tuple[list[Mistake], list[Alternative]]:
    """The mistakes and alternatives a fixture cell lists for answer cell ``cell``."""
    mistakes, alternatives = [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        heading = HEADING.match(lines[i])
        i += 1
        if not heading:
            continue
        kind, key, attributes, why = heading.groups()
        label = f"{kind} {key!r} of {cell}"
        body, i = _block(lines, i, "diff" if kind == "mistake" else "python", label)
        loses = tuple(re.findall(r"`([^`]+)`", attributes))
        hidden_only = HIDDEN_ONLY.search(attributes)
        if hidden_only and kind != "mistake":
            raise FixtureError(f"{label}: only a mistake can be hidden-only")
        if "hidden-only" in attributes and not hidden_only:
            raise FixtureError(f"{label}: write hidden-only (<why no visible check can flag it>)")
        if kind == "mistake":
            if not loses:
                raise FixtureError(f"{label}: a mistake must say which tests it loses (loses `test_...`)")
            code = apply_diff(reference, body, label)
            mistakes.append(Mistake(key, cell, code, loses, why or "", sample="sample" in attributes,
                                    hidden_only=hidden_only.group(1).strip() if hidden_only else ""))
        else:
            if loses:
                raise FixtureError(f"{label}: an alternative loses nothing; one that loses points is a mistake")
            alternatives.append(Alternative(key, cell, body, why or ""))
    return mistakes, alternatives


def _block(lines: list[str], i: int, language: str, label: str) -> tuple[str, int]:
    """The fenced block that follows a heading (its text, and the index after its closing fence)."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    opening = FENCE.match(lines[i]) if i < len(lines) else None
    if not opening or opening.group(1) != language:
        raise FixtureError(f"{label}: the heading must be followed by a ```{language} block")
    end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```"), None)
    if end is None:
        raise FixtureError(f"{label}: its ```{language} block is never closed")
    return "\n".join(lines[i + 1:end]), end + 1


def render(mistakes: list[Mistake], alternatives: list[Alternative], diffs: dict[str, str], cell: str) -> str:
    """The markdown of a fixture cell (``diffs``: mistake key -> its diff text)."""
    parts = [f"### Mistakes and correct alternatives for `{cell}` (author-only: in no generated notebook)"]
    for m in mistakes:
        attributes = (", sample" if m.sample else "") + ", loses " + ", ".join(f"`{t}`" for t in m.loses)
        attributes += f", hidden-only ({m.hidden_only})" if m.hidden_only else ""
        parts.append(f"**mistake `{m.key}`**{attributes}" + (f": {m.why}" if m.why else "")
                     + f"\n```diff\n{diffs[m.key]}\n```")
    for a in alternatives:
        parts.append(f"**alternative `{a.key}`**" + (f": {a.why}" if a.why else "")
                     + f"\n```python\n{a.code.rstrip()}\n```")
    return "\n\n".join(parts)
