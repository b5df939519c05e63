"""``python -m graders judge --answers``: grade answers written from the student notebooks' docstrings alone.

Issue 35 measures the checks on answers nobody shaped to them: wrong and correct answers written from what a
student sees (``tests/data/docstring_answers/<notebook>/<answer cell>/{wrong,correct}_<slug>.py``, one file per
answer cell's content; its README says how they were written). Each is judged the way the judge judges a
catalogued mistake or alternative (:func:`graders.qa.judge.judge_notebook`: one kernel per notebook, the answer in
place of the reference's, every test cell it can reach run, the visible part of its own exercise's test cells run
alone first), so the figures here and the judge's mean the same thing.

What is asked of them differs from a catalogued fixture's: nobody wrote down which test cells a docstring answer
must lose. A wrong answer must lose points somewhere (else the hidden tests miss the sentence it breaks: a gap in
the tests), and the share of wrong answers the visible checks flag is reported; a correct answer must keep full
marks. ``verdicts.toml`` in the answers' folder records the files whose author misread the docstring (a "wrong"
answer that meets it, a "correct" one that breaks it), each with a reason a reader can check; such a file is
judged as its other kind.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from graders.errors import InputError
from graders.mistakes import Mistake
from graders.paths import REPO
from graders.qa.judge import Fixture, Verdict, judge_notebook

ANSWERS = REPO / "tests" / "data" / "docstring_answers"
#: a second set, written later the same way by another author who had not seen the first (issue 35's measure)
FRESH = REPO / "tests" / "data" / "docstring_answers_fresh"
#: a third, written after the clause lists by another author who had seen neither earlier set nor the tests
THIRD = REPO / "tests" / "data" / "docstring_answers_third"
#: a fourth (issue 40): neighbours one input away from the catalogued mistakes, over each docstring's whole domain
DOMAIN = REPO / "tests" / "data" / "docstring_answers_domain"
VERDICTS = "verdicts.toml"
KINDS = ("wrong", "correct")
FILE = re.compile(r"^(wrong|correct)_(\w+)\.py$")
HEADER = re.compile(r"^#\s*(breaks|reading|how):\s*(.*)$")


@dataclass(frozen=True)
class Answer:
    """One file: what a student puts in answer cell ``cell`` of ``notebook``."""

    notebook: str
    cell: str
    kind: str          # "wrong" or "correct", as its author wrote it
    slug: str
    code: str
    claim: str         # its header: the sentence it breaks ("breaks"), or the reading it chose ("reading")

    @property
    def path(self) -> str:
        """Its path inside the answers' folder, the key ``verdicts.toml`` knows it by."""
        return f"{self.notebook}/{self.cell}/{self.kind}_{self.slug}.py"

    @property
    def key(self) -> str:
        return f"{self.cell}/{self.kind}_{self.slug}"

    def fixture(self, prefix: str = "") -> Fixture:
        """As the judge takes it: as a mistake, of either kind, so that the visible part of its exercise's test
        cells is run too (a "correct" file may turn out a misread wrong one). No test cells are named as ones it
        must lose: nobody knows that beforehand, and what it lost is what is reported."""
        return Fixture("mistake", Mistake(prefix + self.key, self.cell, self.code, ()))


def _claim(code: str) -> str:
    fields = {}
    for line in code.splitlines():
        match = HEADER.match(line)
        if not match:
            break  # the header is the comment block the file starts with
        fields.setdefault(match.group(1), match.group(2).strip())
    return fields.get("breaks") or fields.get("reading") or ""


def read_answers(root: Path = ANSWERS, notebooks: list[str] | None = None) -> dict[str, list[Answer]]:
    """``{notebook: its answers}``, from ``root/<notebook>/<cell>/<kind>_<slug>.py`` (only ``notebooks``, where
    given; a notebook without a folder has none). Other files (README, the author's own checks) are not answers."""
    if not root.is_dir():
        raise InputError(f"no folder {root}")
    found: dict[str, list[Answer]] = {}
    for path in sorted(root.glob("*/*/*.py")):
        notebook, cell = path.parent.parent.name, path.parent.name
        match = FILE.match(path.name)
        if not match or (notebooks is not None and notebook not in notebooks):
            continue
        code = path.read_text(encoding="utf-8")
        found.setdefault(notebook, []).append(Answer(notebook, cell, match.group(1), match.group(2), code,
                                                     _claim(code)))
    return found


def read_misreads(root: Path = ANSWERS) -> dict[str, str]:
    """``{answer's path: why its author misread the docstring}`` from ``root/verdicts.toml`` (none if absent)."""
    path = root / VERDICTS
    if not path.exists():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: {exc}") from exc
    misreads = {}
    for name, entry in table.items():
        if not isinstance(entry, dict) or entry.get("kind") != "misread" or not str(entry.get("reason", "")).strip():
            raise InputError(f"{path}: [{name!r}] needs kind = \"misread\" and a reason a reader can check")
        if not (root / name).is_file() or not FILE.match(Path(name).name):
            raise InputError(f"{path}: [{name!r}] is no answer file in {root}")
        misreads[name] = entry["reason"].strip()
    return misreads


@dataclass(frozen=True)
class Outcome:
    """How the course's checks treat one answer."""

    answer: Answer
    verdict: Verdict
    misread: str = ""      # verdicts.toml's reason, where its author misread the docstring

    @property
    def counts_as(self) -> str:
        """Its kind once a recorded misreading is taken into account."""
        return self.answer.kind if not self.misread else KINDS[1 - KINDS.index(self.answer.kind)]

    @property
    def answer_error(self) -> str:
        """What the answer cell itself raised (its names are then missing: a grader's tests of them fail)."""
        return next((e for t, e in self.verdict.errors.items() if t.startswith("answer ")), "")

    @property
    def loses(self) -> bool:
        return bool(self.verdict.lost) or bool(self.answer_error)

    @property
    def flagged_by(self) -> list[str]:
        """Its own exercise's test cells whose visible part (what the student runs) fails it."""
        return sorted(set(self.verdict.visible) & self.verdict.own)

    @property
    def caught_by(self) -> list[str]:
        """Its own exercise's test cells whose hidden part, run alone after the visible part, fails it: the
        hidden tests catch it even where a student fitted the visible checks' inputs."""
        return sorted(set(self.verdict.hidden) & self.verdict.own)

    def problem(self) -> str | None:
        """A correct answer that loses points, or a wrong one that keeps full marks."""
        if self.counts_as == "correct" and self.loses:
            return f"{self.answer.path}: a correct answer loses points: {self.lost_text()}"
        if self.counts_as == "wrong" and not self.loses:
            return (f"{self.answer.path}: a wrong answer keeps full marks (the hidden tests miss "
                    f"{self.answer.claim or 'the sentence it breaks'})")
        return None

    def lost_text(self) -> str:
        lost = [f"{t}: {self.verdict.errors.get(t, '?')}" for t in sorted(self.verdict.lost)]
        if self.answer_error:
            lost.insert(0, f"the answer cell raises {self.answer_error}")
        return "; ".join(lost) or "nothing"

    def line(self) -> str:
        v, a = self.verdict, self.answer
        if self.problem():
            mark = "GAP" if self.counts_as == "wrong" else "LOSES"
        else:
            mark = "UNSEEN" if self.counts_as == "wrong" and not self.flagged_by else "ok"
        text = f"{mark:7} {a.notebook:16} {a.key:48} {self.counts_as:8} {v.score:g}/{v.max:g}"
        if self.misread:
            text += f"\n        misread ({a.kind} as written): {self.misread}"
        if self.counts_as == "wrong":
            hint = (f"{self.flagged_by[0]}: {v.visible[self.flagged_by[0]]}" if self.flagged_by
                    else "NOT FLAGGED (the visible checks pass it)")
            text += f"\n        visible {hint}"
            text += (f"\n        hidden {self.caught_by[0]}: {v.hidden[self.caught_by[0]]}" if self.caught_by
                     else "\n        hidden: NOT CAUGHT (the hidden tests alone pass it)")
            if not self.loses or not self.caught_by:
                text += f"\n        breaks: {a.claim or '?'}"
        if self.loses:
            text += f"\n        lost {self.lost_text()}"
        return text


def judge_answers(notebook: str, answers: list[Answer], misreads: dict[str, str] | None = None,
                  timeout: int | None = None, limits=None) -> tuple[list[Outcome], list[str]]:
    """Every answer of ``notebook`` judged in one kernel; the outcomes, and what went wrong with the reference
    (it must keep full marks before and after them all: an answer that leaks state into later ones shows there)."""
    misreads = misreads or {}
    verdicts = judge_notebook(notebook, timeout=timeout, fixtures=[a.fixture() for a in answers], limits=limits)
    references = [v for v in verdicts if v.kind == "reference"]
    broken = [f"{notebook} {v.key}: {v.score:g}/{v.max:g}, lost {', '.join(sorted(v.lost))}"
              for v in references if v.score != v.max]
    return outcomes_of(answers, verdicts, misreads), broken


def outcomes_of(answers: list[Answer], verdicts, misreads: dict[str, str], prefix: str = "") -> list[Outcome]:
    """Each answer's outcome, from a judge run whose fixtures were ``a.fixture(prefix)`` (among others)."""
    by_key = {v.key: v for v in verdicts if v.kind == "mistake"}
    return [Outcome(a, by_key[prefix + a.key], misreads.get(a.path, "")) for a in answers]


@dataclass(frozen=True)
class Tally:
    """One row of the summary: a notebook's (or every notebook's) answers, counted as judged."""

    label: str
    wrong: int
    flagged: int        # wrong answers the visible checks flag
    caught: int         # wrong answers that lose points under the tests as graded (hidden ones included)
    correct: int
    kept: int           # correct answers that keep full marks
    hidden: int = 0     # wrong answers the hidden tests alone catch (without the visible checks)

    @classmethod
    def of(cls, label: str, outcomes: list[Outcome]) -> Tally:
        wrong = [o for o in outcomes if o.counts_as == "wrong"]
        correct = [o for o in outcomes if o.counts_as == "correct"]
        return cls(label, len(wrong), sum(bool(o.flagged_by) for o in wrong), sum(o.loses for o in wrong),
                   len(correct), sum(not o.loses for o in correct), sum(bool(o.caught_by) for o in wrong))

    @staticmethod
    def header() -> str:
        return f"{'notebook':16} {'wrong':>5} {'visible-flagged':>20} {'lose-points':>11} {'hidden-alone':>12} " \
               f"{'correct':>7} {'correct-kept':>12}"

    def row(self) -> str:
        share = f"{100 * self.flagged / self.wrong:.0f} %" if self.wrong else "-"
        return (f"{self.label:16} {self.wrong:5} {self.flagged:5} ({share:>5})      {self.caught:11} "
                f"{self.hidden:12} {self.correct:7} {self.kept:12}")
