"""Feedback for students and a summary for the instructor, from a graded folder.

- :func:`student_feedback`: nbgrader's own HTML feedback (``generate_feedback``), rendered from
  *cleaned* copies of the graded notebooks: hidden tests' code removed from the test cells (a line
  says they ran), tracebacks of test cells cut to their final line (``AssertionError: accuracy over
  all examples``; gpucourse.checks' one-line ``[FAIL]``/``[TODO]`` renderings stay as they are), the
  grader's guard cells dropped. The visible checks' ``[PASS]``/``[FAIL]`` lines and hints stay, and so
  does each cell's score. A hidden failure under a visible ``[PASS]`` is introduced by
  :data:`MORE_CHECKED` ("The visible checks passed; the hidden tests check more cases and found: ..."),
  so the page never shows a bare ``[PASS]`` above a lost exercise; a test cell whose lost points its outputs do
  not explain (a tamper check took them, a review withheld or decided them) gets one line ``[POINTS] <test>:
  <reason>``, the reason ``grades_detail.csv`` gives (:func:`add_reasons`). :func:`leaks` checks the result. A
  notebook under review (``graders.grading.review``) gets the same page: the flag is nbgrader's ``flagged``, which
  only the formgrader shows; the review's whole evidence is only in grades.csv and the logs.
- :func:`class_summary`: per-exercise pass rates from ``grades_detail.csv`` (plus failed notebooks
  from ``grades.csv``; a score withheld for review counts as not passed) as ``summary.csv``,
  ``summary.md`` and ``summary.png``.
"""

from __future__ import annotations

import csv
import html
import re
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

import nbformat

from graders import course, nbtools
from graders.csvfile import read_rows
from graders.errors import InputError
from graders.grading import graded_folder
from graders.grading.reasons import MORE_CHECKED as MORE_CHECKED  # the feedback note, also named here
from graders.grading.reasons import cell_reason, passed_exercises, shown_error
from graders.paths import course_root

HIDDEN_NOTE = "# (hidden tests ran here; their code is not shown)\n"
#: put under a test cell whose lost points its outputs do not explain (a tamper check took them, a review)
LOST_NOTE = "[POINTS] {grade_id}: "
#: beside the gradebook (a copy of the results folder's): the reasons ``add_reasons`` reads
DETAIL = graded_folder.DETAIL


class ResultsMissing(InputError, FileNotFoundError):
    """The graded folder lacks what ``autograde`` writes (its gradebook, its grades tables)."""


def clean_for_student(nb) -> nbformat.NotebookNode:
    """A graded notebook as a student may see it: no hidden-test code, no grader cells, and a hidden
    failure under a visible [PASS] says that the hidden tests check more (idempotent: feedback runs it
    once itself and once as nbgrader's preprocessor)."""
    nb = nbformat.from_dict(nb)
    cells = []
    for cell in nb.cells:
        if cell.metadata.get("grader_guard"):
            continue
        if nbtools.is_test_cell(cell) and cell.cell_type == "code":
            if nbtools.HIDDEN_BLOCK.search(cell.source):
                cell.source = nbtools.HIDDEN_BLOCK.sub(HIDDEN_NOTE, cell.source).rstrip() + "\n"
            passed = passed_exercises(cell)
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = shown_error(output, passed)
        cells.append(cell)
    nb.cells = cells
    return nb


def add_reasons(nb, reasons: dict[str, str]) -> nbformat.NotebookNode:
    """Under every test cell of ``reasons`` ({grade_id: why it lost points}) whose outputs do not already say
    it, one line ``[POINTS] <grade_id>: <reason>`` (idempotent). The reasons are ``grades_detail.csv``'s: a
    hidden test's requirement, never its code (``graders.grading.reasons``)."""
    for cell in nb.cells:
        reason = reasons.get(nbtools.grade_id(cell) or "")
        if not reason or not nbtools.is_test_cell(cell) or reason == cell_reason(cell):
            continue
        line = LOST_NOTE.format(grade_id=nbtools.grade_id(cell)) + reason + "\n"
        if not any(o.get("text") == line for o in cell.get("outputs", [])):
            cell.setdefault("outputs", []).append(nbformat.v4.new_output("stream", name="stdout", text=line))
    return nb


def detail_reasons(db_url: str, student: str, notebook: str) -> dict[str, str]:
    """The reasons of ``grades_detail.csv`` for one notebook of one student, from the results folder of the
    gradebook at ``db_url`` (``sqlite:///DIR/gradebook.db``: the file beside it, else the one above, where
    ``autograde --out DIR`` writes it next to ``DIR/course``); {} when there is none."""
    if not db_url.startswith("sqlite:///"):
        return {}
    folder = Path(db_url[len("sqlite:///"):]).parent
    path = next((p for p in (folder / DETAIL, folder.parent / DETAIL) if p.exists()), None)
    if path is None:
        return {}
    return {d["grade_id"]: d.get("reason") or "" for d in read_rows(path)
            if (d["student_id"], d["notebook"]) == (student, notebook) and d.get("reason")}


def hidden_lines(source_nb) -> set[str]:
    """The hidden tests' code lines (long enough to be recognisable) of a source notebook."""
    lines = set()
    for cell in source_nb.cells:
        if nbtools.is_test_cell(cell):
            visible = {line.strip() for line in nbtools.strip_hidden(cell.source).splitlines()}
            for block in nbtools.HIDDEN_BLOCK.findall(cell.source):
                for line in block.splitlines():
                    text = line.strip()
                    if len(text) > 24 and not text.startswith("###") and text not in visible:
                        lines.add(text)
    return lines


def _spaced(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def leaks(html_text: str, secret_lines: set[str], shown_source: str = "") -> list[str]:
    """Hidden-test lines that can still be read in a feedback page.

    A line found inside ``shown_source`` (the code the student may see anyway: the released
    notebook, their own cells, the visible tests) gives nothing away, so it is not a leak: the
    hidden line ``synchronize = f`` is also in the visible ``synchronize = f  # a comment``.
    """
    plain = _spaced(html.unescape(re.sub(r"<[^>]+>", "", html_text)))
    shown = _spaced(shown_source)
    found = [line for line in secret_lines if _spaced(line) in plain and _spaced(line) not in shown]
    if "BEGIN HIDDEN TESTS" in plain:
        found.append("BEGIN HIDDEN TESTS")
    return found


def student_feedback(graded_dir: Path, dest: Path,
                     names: list[str] | None = None) -> tuple[list[Path], list[str]]:
    """Write ``dest/<student>/<notebook>/<notebook>.html`` for every graded notebook of ``graded_dir``'s course.

    Returns the pages written, and the pages refused (with the reason) because they would show
    hidden tests.
    """
    root = course_root(Path(graded_dir))
    if not graded_folder.has_gradebook(root):
        raise ResultsMissing(f"{graded_folder.gradebook_path(root)} not found: run `python -m graders autograde` first")
    names = names or sorted(p.name for p in (root / "release").iterdir() if p.is_dir())
    work = Path(tempfile.mkdtemp(prefix="feedback-"))
    written, problems = [], []
    try:
        shutil.copy(graded_folder.gradebook_path(root), graded_folder.gradebook_path(work))
        if (Path(graded_dir) / DETAIL).exists():  # the reasons the preprocessor adds (HideHiddenTests)
            shutil.copy(Path(graded_dir) / DETAIL, work / DETAIL)
        for rel in ("nbgrader_config.py", "grader_limits.py"):
            if (root / rel).exists():
                shutil.copy(root / rel, work / rel)
        for name in names:
            shutil.copytree(root / "release" / name, work / "release" / name)
            (work / "source" / name).mkdir(parents=True)
            released = "\n".join(c.source for c in nbtools.read(root / "release" / name / f"{name}.ipynb").cells)
            shown: dict[str, str] = {}
            for nb_path in sorted((root / "autograded").glob(f"*/{name}/{name}.ipynb")):
                student = nb_path.parent.parent.name
                target = work / "autograded" / student / name / f"{name}.ipynb"
                target.parent.mkdir(parents=True, exist_ok=True)
                clean = clean_for_student(nbtools.read(nb_path))
                nbformat.write(clean, str(target))
                # what the student may see anyway: the released notebook and their own cells (test
                # cells come from the released notebook, never from the graded copy)
                shown[student] = released + "\n" + "\n".join(c.source for c in clean.cells
                                                                if not nbtools.is_test_cell(c))
            if not any((work / "autograded").glob(f"*/{name}")):
                continue
            result = course.api(work).generate_feedback(name, force=True)
            if not result["success"]:
                raise RuntimeError(f"nbgrader generate_feedback {name} failed:\n{result.get('log', '')}\n"
                                   f"{result.get('error', '')}")
            secret = hidden_lines(nbtools.read(root / "source" / name / f"{name}.ipynb")) \
                if (root / "source" / name / f"{name}.ipynb").exists() else set()
            for page in sorted((work / "feedback").glob(f"*/{name}/{name}.html")):
                student = page.parent.parent.name
                text = page.read_text(encoding="utf-8")
                found = leaks(text, secret, shown.get(student, released))
                if found:  # never hand out such a page
                    problems.append(f"{student}/{name}: not written, it would show hidden tests: {found[:2]}")
                    continue
                # nbgrader's own layout (feedback/<student>/<assignment>/), which `nbgrader release_feedback` reads
                out = Path(dest) / student / name / f"{name}.html"
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(text, encoding="utf-8")
                written.append(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return written, problems


# ---------------------------------------------------------------------------------------------
def class_summary(graded_dir: Path, dest: Path | None = None) -> list[dict]:
    """Per exercise: students, passed (full marks), pass rate, mean share of the points.

    Every student with a row for the notebook counts; one whose notebook failed (no cell scores)
    counts as not passed. Writes ``summary.csv``, ``summary.md`` and ``summary.png`` into ``dest``.
    """
    graded_dir = Path(graded_dir)
    dest = Path(dest or graded_dir)
    dest.mkdir(parents=True, exist_ok=True)
    if not (graded_dir / DETAIL).exists():
        detail_csv = graded_dir / DETAIL
        raise ResultsMissing(f"{detail_csv} not found: run `python -m graders autograde` first")
    detail = read_rows(graded_dir / DETAIL)
    grades = read_rows(graded_dir / graded_folder.GRADES)
    students = defaultdict(set)
    for row in grades:
        students[row["notebook"]].add(row["student_id"])
    scores = defaultdict(dict)
    maxima = {}
    for row in detail:
        key = (row["notebook"], row["grade_id"])
        # an empty score is withheld for review: the student counts, as not passed (like a failed notebook)
        scores[key][row["student_id"]] = float(row["score"] or 0)
        maxima[key] = float(row["max_score"])
        students[row["notebook"]].add(row["student_id"])
    table = []
    for (notebook, gid) in sorted(scores, key=lambda k: (k[0], list(scores).index(k))):
        everyone = students[notebook]
        got = scores[(notebook, gid)]
        mx = maxima[(notebook, gid)]
        passed = sum(1 for s in everyone if got.get(s, 0.0) >= mx > 0)
        mean = sum(got.get(s, 0.0) for s in everyone) / (len(everyone) * mx) if everyone and mx else 0.0
        table.append({"notebook": notebook, "exercise": gid, "max_score": f"{mx:g}", "students": len(everyone),
                      "passed": passed, "pass_rate": f"{passed / len(everyone):.3f}" if everyone else "0",
                      "mean_share": f"{mean:.3f}"})
    failed, withheld = defaultdict(int), defaultdict(int)
    for row in grades:
        if row["status"] == "failed":
            failed[row["notebook"]] += 1
        if row["status"] == "review" and not row["score"]:
            withheld[row["notebook"]] += 1
    with open(dest / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, ["notebook", "exercise", "max_score", "students", "passed", "pass_rate",
                                    "mean_share"])
        writer.writeheader()
        writer.writerows(table)
    lines = ["| notebook | exercise | points | students | passed | pass rate | mean share of points |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in table:
        lines.append(f"| {r['notebook']} | {r['exercise']} | {r['max_score']} | {r['students']} | {r['passed']} "
                     f"| {float(r['pass_rate']):.0%} | {float(r['mean_share']):.0%} |")
    if failed:
        lines += ["", "Notebooks that could not be graded (status `failed`, see grades.csv): "
                  + ", ".join(f"{n}: {k}" for n, k in sorted(failed.items()))]
    if withheld:
        lines += ["", "Scores withheld until reviewed (status `review`, `python -m graders review`), counted as "
                  "not passed: " + ", ".join(f"{n}: {k}" for n, k in sorted(withheld.items()))]
    (dest / "summary.md").write_text("\n".join(lines) + "\n")
    _plot(table, dest / "summary.png")
    return table


def _plot(table: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['notebook']} · {r['exercise']}" for r in table]
    rates = [float(r["pass_rate"]) for r in table]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(table) + 1.2))
    colors = ["#c0392b" if v < 0.5 else "#e67e22" if v < 0.8 else "#27ae60" for v in rates]
    ax.barh(range(len(table)), rates, color=colors)
    ax.set_yticks(range(len(table)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of students with full marks")
    for i, r in enumerate(table):
        ax.text(min(rates[i] + 0.01, 0.93), i, f"{r['passed']}/{r['students']}", va="center", fontsize=8)
    ax.set_title("Pass rate per exercise")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
