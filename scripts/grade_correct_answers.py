#!/usr/bin/env python
"""Grade every correct answer the repository knows, three ways, and show any that loses points (issue 35).

    python scripts/grade_correct_answers.py                          # every notebook, ways a, b and c
    python scripts/grade_correct_answers.py --notebooks 01_devices --ways a
    python scripts/grade_correct_answers.py --keep                   # reuse what an earlier run graded

The correct answers: the alternatives each source catalogues (``graders.alternatives``) and the correct files of
the answers written from the docstrings alone (``tests/data/docstring_answers/`` and, where present,
``tests/data/docstring_answers_fresh/``), a file its folder's ``verdicts.toml`` records as misread counting as its
other kind. They are packed, one answer per answer cell, into submissions (``graders.qa.selftest.pack``), each
student named ``ok-NN-i`` and listed with the answers it carries in ``OUT/manifest.json``, and graded:

a. ``python -m graders autograde`` as an instructor runs it (intake, static scan, guard, OS sandbox where it starts);
b. the same with ``GRADER_SANDBOX=0``;
c. plain ``nbgrader autograde NB --force`` in a course made by ``graders.course.create`` (the project's config),
   scores read from nbgrader's gradebook.

Every submission must keep full marks every way. The script prints one table, then each submission that lost points
with its answers, the cells it lost and why, and exits 1 if any did. Each answer of such a submission is then graded
alone (way a) to name the one responsible. ``tests/e2e/grading/test_alternatives.py`` grades the first submission
of alternatives per notebook in CI; this script grades them all, and is run by hand (it takes hours on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from graders import nbtools  # noqa: E402 (needs REPO on sys.path)
from graders.paths import COURSE_ID, SOLUTIONS, notebook_names  # noqa: E402

ANSWER_ROOTS = {"docstring": REPO / "tests" / "data" / "docstring_answers",
                "fresh": REPO / "tests" / "data" / "docstring_answers_fresh",
                "third": REPO / "tests" / "data" / "docstring_answers_third",
                "domain": REPO / "tests" / "data" / "docstring_answers_domain"}
WAYS = {"a": "graders autograde", "b": "graders autograde, GRADER_SANDBOX=0", "c": "plain nbgrader"}
DEFAULT_OUT = REPO / "graded-correct"


@dataclass(frozen=True)
class Correct:
    """One correct answer: what goes into answer cell ``cell``; ``key`` says where it comes from."""

    key: str
    cell: str
    code: str

    loses = ()  # what selftest.pack groups by, with the cell: a correct answer loses no test


@dataclass(frozen=True)
class Case:
    """One submission: ``student``'s ``notebook`` carrying ``answers`` (the reference in every other cell)."""

    student: str
    notebook: str
    answers: tuple[Correct, ...]

    @property
    def keys(self) -> list[str]:
        return [a.key for a in self.answers]


@dataclass
class Result:
    """How one way graded one case."""

    score: float | None
    max_score: float
    status: str                 # "graded", "review", "failed" (autograde's), or "missing" when no grade came back
    message: str = ""
    lost: dict | None = None    # grade_id -> why it lost points

    def full(self, points: float) -> bool:
        return self.status == "graded" and self.score == points and not self.lost


# --- collecting -----------------------------------------------------------------------------------------------

def docstring_correct(root: Path, notebooks: list[str], label: str) -> dict[str, list[Correct]]:
    """The answers in ``root`` that count as correct once ``root/verdicts.toml`` is applied."""
    from graders.qa.docstring_answers import KINDS, read_answers, read_misreads

    if not root.is_dir():
        return {}
    misreads = read_misreads(root)
    found: dict[str, list[Correct]] = {}
    for notebook, answers in read_answers(root, notebooks).items():
        for answer in answers:
            kind = answer.kind if answer.path not in misreads else KINDS[1 - KINDS.index(answer.kind)]
            if kind == "correct":
                found.setdefault(notebook, []).append(Correct(f"{label}:{answer.key}", answer.cell, answer.code))
    return found


def collect(notebooks: list[str], roots: dict[str, Path] | None = None,
            alternatives: bool = True) -> dict[str, list[Correct]]:
    """``{notebook: every correct answer}``: the catalogued alternatives first (unless ``alternatives`` is False),
    then each answers folder's."""
    from graders.alternatives import for_notebook

    roots = ANSWER_ROOTS if roots is None else roots
    found = {name: [Correct(f"alt:{a.key}", a.cell, a.code) for a in for_notebook(name)] if alternatives else []
             for name in notebooks}
    for label, root in roots.items():
        for name, answers in docstring_correct(root, notebooks, label).items():
            found[name].extend(answers)
    return found


# --- packing ----------------------------------------------------------------------------------------------------

def plan(collected: dict[str, list[Correct]]) -> list[Case]:
    """One case per packed group: no two answers of a case share an answer cell."""
    from graders.qa.selftest import pack

    return [Case(f"ok-{name[:2]}-{index + 1}", name, tuple(group))
            for name, answers in collected.items() for index, group in enumerate(pack(answers))]


def singles(case: Case) -> list[Case]:
    """``case``'s answers one per submission, to find which of them loses points."""
    return [Case(f"one-{case.student[3:]}-{index + 1}", case.notebook, (answer,))
            for index, answer in enumerate(case.answers)]


def manifest(cases: list[Case]) -> dict[str, list[str]]:
    """``{"student/notebook": the keys of the answers it carries}``."""
    return {f"{c.student}/{c.notebook}": c.keys for c in cases}


def write_submissions(folder: Path, cases: list[Case]) -> None:
    """``folder/<student>/<notebook>.ipynb`` for every case (the folder is made anew) and ``manifest.json``."""
    from graders.authoring import samples

    if folder.exists():
        shutil.rmtree(folder)
    for case in cases:
        nb = nbtools.tidy(samples.with_mistakes(case.notebook, list(case.answers)))
        nbtools.write(nb, folder / case.student / f"{case.notebook}.ipynb")
    (folder / "manifest.json").write_text(json.dumps(manifest(cases), indent=1) + "\n", encoding="utf-8")


def full_marks(name: str) -> float:
    return sum(nbtools.test_points(nbtools.read(SOLUTIONS / f"{name}.ipynb")).values())


# --- grading ------------------------------------------------------------------------------------------------------

def _run(cmd: list[str], cwd: Path, env: dict, log: Path) -> int:
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT).returncode


def read_rows(out: Path) -> dict[tuple[str, str], Result]:
    """``{(student, notebook): Result}`` from an autograde run's grades files (none before its first row)."""
    from graders.grading.graded_folder import read_csv

    try:
        rows = read_csv(out)
    except FileNotFoundError:
        return {}
    return {(r.student_id, r.notebook): Result(r.score, r.max_score, r.status, r.message, dict(r.reasons))
            for r in rows}


def grade_autograde(cases: list[Case], submissions: Path, out: Path, jobs: int, sandbox: bool) -> dict:
    """Ways a and b: ``python -m graders autograde`` on ``cases`` (all of one notebook), into ``out``."""
    name = cases[0].notebook
    env = dict(os.environ)
    if not sandbox:
        env["GRADER_SANDBOX"] = "0"
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "graders", "-q", "autograde", str(submissions), "--out", str(out),
           "--jobs", str(jobs), "--notebooks", name, "--students", *[c.student for c in cases]]
    _run(cmd, REPO, env, out / f"{name}.log")
    rows = read_rows(out)
    return {c.student: rows.get((c.student, name), Result(None, full_marks(name), "missing",
                                                          f"no row: see {out / f'{name}.log'}"))
            for c in cases}


def _error_of(nb, grade_id: str) -> str:
    """The error a test cell of an autograded notebook shows, in one line."""
    for cell in nb.cells:
        if nbtools.grade_id(cell) == grade_id:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    return f"{output.get('ename')}: {output.get('evalue')}"[:300]
    return "no error shown"


def grade_plain(cases: list[Case], submissions: Path, out: Path) -> dict:
    """Way c: plain ``nbgrader autograde NB --force`` in a course of the project's config; the gradebook's scores."""
    from nbgrader.api import Gradebook

    from graders import course

    name = cases[0].notebook
    root = out / "course"
    if not root.exists():
        course.create(root, notebook_names())
    for case in cases:
        dest = root / "submitted" / case.student / name
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        shutil.copy(submissions / case.student / f"{name}.ipynb", dest / f"{name}.ipynb")
    _run([sys.executable, "-m", "nbgrader", "autograde", name, "--force"], root, course.venv_env(),
         out / f"{name}.log")
    results = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
        for case in cases:
            try:
                graded = gradebook.find_submission_notebook(name, name, case.student)
            except Exception as error:  # nbgrader's MissingEntry: it did not grade this one
                results[case.student] = Result(None, full_marks(name), "missing",
                                               f"{error}; see {out / f'{name}.log'}")
                continue
            lost = {g.name: "" for g in graded.grades if g.max_score and g.score != g.max_score}
            if lost:
                nb = nbtools.read(root / "autograded" / case.student / name / f"{name}.ipynb")
                lost = {gid: _error_of(nb, gid) for gid in lost}
            results[case.student] = Result(graded.score, graded.max_score, "graded", "", lost)
    return results


def grade_way(way: str, cases: list[Case], submissions: Path, out: Path, jobs: int, keep: bool) -> tuple[dict, float]:
    """One way, one notebook's cases: ``{student: Result}`` and the seconds it took, kept in
    ``out/<notebook>.json``; with ``keep`` an earlier run's file is reused where it graded the same answers."""
    name = cases[0].notebook
    saved = out / f"{name}.json"
    if keep and saved.exists():
        data = json.loads(saved.read_text(encoding="utf-8"))
        if data.get("manifest") == manifest(cases):
            return {s: Result(**r) for s, r in data["results"].items()}, data.get("seconds", 0.0)
    start = time.monotonic()
    if way == "c":
        results = grade_plain(cases, submissions, out)
    else:
        results = grade_autograde(cases, submissions, out, jobs, sandbox=way == "a")
    seconds = time.monotonic() - start
    saved.write_text(json.dumps({"manifest": manifest(cases), "seconds": seconds,
                                 "results": {s: asdict(r) for s, r in results.items()}}, indent=1) + "\n",
                     encoding="utf-8")
    return results, seconds


# --- reporting ----------------------------------------------------------------------------------------------------

def table(collected: dict[str, list[Correct]], cases: list[Case], results: dict, ways: list[str]) -> str:
    """notebook | correct answers | submissions | full marks per way ("-": not graded that way)."""
    head = ["notebook", "correct answers", "submissions"] + [f"full marks ({w})" for w in WAYS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, answers in collected.items():
        mine = [c for c in cases if c.notebook == name]
        cells = [name, str(len(answers)), str(len(mine))]
        for way in WAYS:
            got = [results.get((way, c.student, name)) for c in mine]
            if way not in ways or any(r is None for r in got):
                done = sum(r is not None for r in got)
                cells.append("-" if not done else f"{sum(r.full(full_marks(name)) for r in got if r)}/{done} so far")
            else:
                cells.append(f"{sum(r.full(full_marks(name)) for r in got)}/{len(mine)}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def losses(cases: list[Case], results: dict) -> list[tuple[Case, str, Result]]:
    """Every (case, way, result) that is not full marks."""
    found = []
    for case in cases:
        for way in WAYS:
            result = results.get((way, case.student, case.notebook))
            if result is not None and not result.full(full_marks(case.notebook)):
                found.append((case, way, result))
    return found


def describe(case: Case, way: str, result: Result) -> str:
    score = "withheld" if result.score is None else f"{result.score:g}"
    text = [f"{case.student}/{case.notebook} way {way}: {result.status} {score}/{result.max_score:g}"
            + (f" ({result.message})" if result.message else ""),
            f"    answers: {', '.join(case.keys)}"]
    text += [f"    lost {gid}: {reason}" for gid, reason in (result.lost or {}).items()]
    return "\n".join(text)


# --- the run ------------------------------------------------------------------------------------------------------

def narrow(lost: list[Case], out: Path, jobs: int, keep: bool) -> dict[str, list[str]]:
    """Each answer of every case that lost points graded alone (way a): ``{student: the keys that lose alone}``."""
    found = {}
    single = {case.student: singles(case) for case in lost}
    every = [c for cs in single.values() for c in cs]
    if not every:
        return found
    submissions = out / "narrow" / "submissions"
    write_submissions(submissions, every)
    graded = {}
    for name in sorted({c.notebook for c in every}):
        graded.update(grade_way("a", [c for c in every if c.notebook == name], submissions, out / "narrow" / "a",
                                jobs, keep)[0])
    for student, ones in single.items():
        found[student] = [c.keys[0] for c in ones if not graded[c.student].full(full_marks(c.notebook))]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", nargs="*", default=None, help="only these notebooks (default: all)")
    parser.add_argument("--ways", default="a,b,c", help="which ways to grade, of a,b,c (default: all three)")
    parser.add_argument("--jobs", type=int, default=1, help="autograde's --jobs for ways a and b")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where it all goes (default {DEFAULT_OUT})")
    parser.add_argument("--keep", action="store_true", help="reuse what an earlier run graded of the same answers")
    parser.add_argument("--sets", default=",".join(["alt", *ANSWER_ROOTS]),
                        help="which answers: alt (the catalogued alternatives) and answer folders "
                             f"({', '.join(ANSWER_ROOTS)}); default all")
    args = parser.parse_args(argv)
    from tqdm import tqdm

    names = args.notebooks or notebook_names()
    unknown = sorted(set(names) - set(notebook_names()))
    ways = [w.strip() for w in args.ways.split(",") if w.strip()]
    if unknown or not ways or set(ways) - set(WAYS):
        parser.error(f"unknown notebooks {unknown} or ways {ways}: the ways are a, b, c")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not args.keep:
        for way in ways:
            shutil.rmtree(out / way, ignore_errors=True)
    sets = [x.strip() for x in args.sets.split(",") if x.strip()]
    if not sets or set(sets) - {"alt", *ANSWER_ROOTS}:
        parser.error(f"unknown sets {sets}: they are alt, {', '.join(ANSWER_ROOTS)}")
    collected = collect(names, {k: v for k, v in ANSWER_ROOTS.items() if k in sets}, alternatives="alt" in sets)
    cases = plan(collected)
    submissions = out / "submissions"
    write_submissions(submissions, cases)
    print(f"{sum(map(len, collected.values()))} correct answers in {len(cases)} submissions "
          f"({submissions / 'manifest.json'}); commit {_head()}", flush=True)
    results, wall = {}, {}
    # notebook by notebook, every way of one before the next: a stopped run leaves whole rows of the table
    tasks = [(name, way) for name in names for way in ways]
    with tqdm(tasks, desc="grading", unit="notebook-way", file=sys.stderr) as bar:
        for name, way in bar:
            bar.set_postfix_str(f"{name} ({way})")
            mine = [c for c in cases if c.notebook == name]
            graded, seconds = grade_way(way, mine, submissions, out / way, args.jobs, args.keep)
            wall[way] = wall.get(way, 0.0) + seconds
            for student, result in graded.items():
                results[(way, student, name)] = result
    print(table(collected, cases, results, ways))
    print("wall time: " + ", ".join(f"({w}) {wall[w] / 60:.1f} min" for w in ways))
    lost = losses(cases, results)
    if not lost:
        print("every correct answer kept full marks")
        return 0
    print(f"\n{len(lost)} gradings lost points:")
    for case, way, result in lost:
        print(describe(case, way, result))
    culprits = narrow(sorted({c for c, _, _ in lost}, key=lambda c: c.student), out, args.jobs, args.keep)
    print("\neach answer graded alone (way a):")
    for student, keys in culprits.items():
        print(f"  {student}: " + (", ".join(keys) + " lose(s) points alone" if keys
                                  else "none loses alone (the answers lose only together)"))
    return 1


def _head() -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())
