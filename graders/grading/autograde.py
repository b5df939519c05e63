"""``python -m graders autograde SUBMISSIONS --out DIR``: grade every student with real nbgrader.

Each (student, notebook) runs in its own ``nbgrader autograde`` process under the limits of
``graders.limits`` (see ``graders.grading.pipeline``), so a crash, a dead kernel or an endless loop costs
that one notebook only. Every pair ends as a row of ``DIR/grades.csv``: ``graded`` with its score,
``review`` when a tamper check found something (``graders.grading.review``: the instructor's decisions in
``DIR/reviews.json`` are applied to every run), or ``failed`` with a reason.
``DIR/grades_detail.csv`` holds the score of every test cell. Both are rewritten as each notebook finishes, so a
run that stops keeps every row it graded, and a rerun grades only what is missing or changed
(``graders.grading.finished``).
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
from pathlib import Path

from graders import course, machine
from graders.errors import InputError
from graders.grading import finished, graded_folder, preflight, sandbox, setup_cell, warm
from graders.grading.cores import cores_shared
from graders.grading.graded_folder import read_csv, write_csv  # noqa: F401 -- where the tests import them from
from graders.grading.pipeline import grade_one
from graders.grading.row import Row
from graders.grading.run_record import RunRecord, record_run
from graders.grading.score import max_scores
from graders.intake import student_files as intake
from graders.limits import Limits
from graders.paths import course_root, is_course, notebook_names

log = logging.getLogger(__name__)


class NothingToGrade(InputError):
    """SUBMISSIONS holds no student folder with a notebook; the message says what it looks like."""


def students_in(submissions: Path) -> list[Path]:
    """The student folders of ``SUBMISSIONS/<student>/...`` or of an nbgrader course's ``submitted/``.

    A student's notebooks may lie at any depth (``submitted/<student>/<assignment>/<nb>.ipynb``).
    Raises :class:`NothingToGrade` for an LMS download, a zip, or a folder one level above the
    student folders, instead of grading it as an empty class or as one student.
    """
    from graders.intake.collect import detect
    path = Path(submissions)
    if path.is_dir() and (path / "submitted").is_dir():
        path = path / "submitted"  # an nbgrader course folder
    run_collect = f"run `python -m graders collect {submissions} --course DIR` first, then grade DIR/submitted"
    layout = detect(path) if path.exists() else None
    if layout == "zip" or (path.is_file() and path.suffix.lower() == ".zip"):
        raise NothingToGrade(f"{submissions} is a zip file, not a folder of student folders: {run_collect}")
    if layout:
        raise NothingToGrade(f"{submissions} looks like a {layout} download, not per-student folders: {run_collect}")
    if not path.is_dir():
        raise NothingToGrade(f"{submissions} is not a folder")
    folders = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "__MACOSX")
    with_notebooks = [f for f in folders if _notebooks_in(f)]
    if not with_notebooks:
        raise NothingToGrade(f"no student folder in {submissions} holds a notebook (looked for "
                             f"{submissions}/<student_id>/*.ipynb): nothing to grade. "
                             f"For an LMS download, {run_collect}")
    if all(_holds_students(f) for f in with_notebooks):
        raise NothingToGrade(f"the folders in {submissions} ({', '.join(f.name for f in with_notebooks[:3])}) hold "
                             f"student folders themselves: pass {with_notebooks[0]} (one folder per student) instead")
    assignments = [f for f in with_notebooks if _named_like_a_notebook(f)]
    if assignments:
        raise NothingToGrade(f"{submissions} is one level above the student folders: "
                             f"{_owners_text(assignments[0])} named like a released notebook, not like a student "
                             f"(a Google Classroom or LMS folder of one assignment, each file a student's): "
                             f"{run_collect}")
    return folders


def _notebooks_in(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and (".ipynb" in p.name.lower() or p.suffix.lower() == ".zip")
            and "__MACOSX" not in p.parts and ".ipynb_checkpoints" not in p.parts]


def _named_like_a_notebook(folder: Path) -> bool:
    """An assignment's folder (``01_devices/``, ``01_devices (1)/``), which no student id is."""
    return intake.normalise_name(folder.name) in notebook_names()


def _owners_text(folder: Path) -> str:
    """``'01_devices/ holds 2 notebooks ('01_devices - Jane Doe.ipynb', ...)'``: what a person sees in it."""
    files = sorted(p.name for p in _notebooks_in(folder))
    shown = ", ".join(f"'{name}'" for name in files[:3]) + (", ..." if len(files) > 3 else "")
    return f"{folder.name}/ holds {len(files)} notebook(s) ({shown}) and is"


def _holds_students(folder: Path) -> bool:
    """A folder of student folders: no notebook of its own, and two or more sub-folders with notebooks
    that are not nbgrader assignment folders (named like a notebook)."""
    if any(p.parent == folder for p in _notebooks_in(folder)):
        return False
    subs = [d for d in folder.iterdir() if d.is_dir() and _notebooks_in(d)]
    return len(subs) >= 2 and not any(d.name in notebook_names() for d in subs)


def in_shard(student: str, shard: tuple[int, int] | None) -> bool:
    """Shard ``(i, n)`` holds the students whose id hashes to ``i - 1`` modulo ``n``.

    A hash of the id, not a position in a listing, so that every machine agrees on the split
    and a late submission does not move other students between shards.
    """
    if shard is None:
        return True
    index, count = shard
    return int(hashlib.sha256(student.encode()).hexdigest(), 16) % count == index - 1


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    index, count = (int(part) for part in text.split("/"))
    if not 1 <= index <= count:
        raise InputError(f"--shard {text}: expected i/n with 1 <= i <= n")
    return index, count


def autograde(submissions: Path, out: Path | None = None, names: list[str] | None = None, progress: bool = True,
              jobs: int = 1, shard: tuple[int, int] | None = None, solutions: Path | None = None,
              students: list[str] | None = None, limits: Limits | None = None, regrade: bool = False) -> list[Row]:
    """Grade every student (of one shard, or those named) in ``submissions``, ``jobs`` notebooks at a time,
    under ``limits`` (by default those of the environment, ``Limits.from_env()``, read once here).

    Results go to nbgrader's course folder ``course_root(out)`` (``out/course``, or ``out`` itself when it
    is an nbgrader course; ``out`` defaults to ``submissions`` when that is a course folder) and to
    ``out/grades.csv``, row by row as each notebook finishes. A rerun adds and updates: students and notebooks
    it does not grade keep their rows, manual grades given in the formgrader stay (see
    :func:`graders.grading.gradebook_rows.refresh`), and a pair whose row it finished from the same hand-in is
    kept, not graded again, unless ``regrade`` (see :mod:`graders.grading.finished`).
    """
    limits = Limits.from_env() if limits is None else limits
    students_in(submissions)  # refuse an LMS download or an empty folder before any work
    if out is None:
        if not is_course(submissions):
            raise NothingToGrade(f"{submissions} is not an nbgrader course folder: say where results go (--out DIR)")
        out = submissions
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    graded_folder.check_format(out)  # a newer grader's folder: refused before any work, not rewritten
    root = course_root(out)
    names = names or course_notebooks(root, submissions)
    folders = [f for f in students_in(submissions) if in_shard(f.name, shard)
               and (students is None or f.name in students)]
    if students is not None:
        missing = sorted(set(students) - {f.name for f in folders})
        if missing:
            raise NothingToGrade(f"no folder in {submissions} for {', '.join(missing)}")
    jobs = max(1, min(jobs, len(folders) * len(names) or 1))  # one slot per notebook graded at once
    if not sandbox.active():  # once, even when quiet: the instructor must know what protects the machine
        log.warning(sandbox.probe().line())
    # the warm slots start in the background while the course and the data are made ready
    with cores_shared(jobs), warm.slots(jobs, limits) as warm_slots:
        course.ensure(root, names, limits=limits, **({"solutions": Path(solutions)} if solutions else {}))
        maxima = max_scores(root, names)
        machine.prepare(verbose=progress)
        # Read every submission before any student code runs, so none can touch another's files first.
        intakes = {f.name: intake.intake_student(f, names) for f in folders}
        record = RunRecord(out, root)
        grade_all(root, out, folders, intakes, maxima, names, jobs, warm_slots, progress, limits, record, regrade,
                  before_first=lambda graded: run_preflight(root, graded, limits, warm_slots, progress))
    return record_run(out, root, record.graded)


def run_preflight(root: Path, names: list[str], limits: Limits, warm_slots: warm.slots, progress: bool) -> None:
    """The pre-flight (``graders.grading.preflight``) for ``names``, in the run's first warm slot where it has one;
    raises ``KernelCannotRunCourse`` (exit 2) when the kernel cannot run the course, before any row is written."""
    first = warm_slots.all[0] if warm_slots.all and warm_slots.all[0].usable() else None
    result = preflight.require(preflight.released(root, names), limits, first)
    if progress:
        log.info(result.line)


def grade_all(root: Path, out: Path, folders: list[Path], intakes: dict, maxima: dict, names: list[str], jobs: int,
              warm_slots: warm.slots, progress: bool, limits: Limits, record: RunRecord | None = None,
              regrade: bool = False, before_first=None) -> list[Row]:
    """This run's rows: every (student, notebook) pair not kept from an earlier run, ``jobs`` pairs at a time (a
    student's notebooks in parallel too), each thread in a warm slot of its own when warm; each row goes into
    ``record`` (the results files) as it finishes. ``before_first(notebooks)``, when given, runs once before the
    first pair is graded, with the notebooks this run grades (``autograde`` passes the pre-flight); nothing runs it
    when every pair is kept."""
    record = RunRecord(out, root) if record is None else record
    lock = threading.Lock()
    pairs = [(f.name, item) for f in folders for item in intakes[f.name].values()]
    tests = {name: finished.tests_digest(root / "source" / name / f"{name}.ipynb") for name in names}
    setup = finished.setup_digest(limits, sandbox.active())
    todo = []
    for student, item in pairs:
        fp = finished.fingerprint(item.digest, tests[item.notebook], setup)
        earlier = record.earlier(student, item.notebook)
        if not regrade and record.inputs.kept(earlier, fp):
            if progress:  # not a [k/N] line: those are the notebooks graded now, which tools count
                log.info("[kept] %-24s %-16s %s %s: graded before from this same hand-in, tests and set-up "
                         "(--regrade grades it again)", earlier.student_id, earlier.notebook, score_text(earlier),
                         earlier.status)
        else:
            todo.append((student, item, fp))
    if todo and before_first is not None:  # a kernel that cannot run the course grades nothing (exit 2)
        before_first([n for n in names if any(item.notebook == n for _, item, _ in todo)])
    done = [0]

    def report(row: Row) -> None:
        done[0] += 1
        if progress:
            log.info("[%d/%d] %-24s %-16s %s %s", done[0], len(todo), row.student_id, row.notebook,
                     score_text(row), row.status)

    def grade_pair(student: str, item: intake.Intake, fp: str | None) -> Row:
        slot = warm_slots.for_this_thread()  # a thread keeps its slot from one pair to the next
        row = grade_one(root, out, student, item, maxima[item.notebook], slot, limits)
        with lock:
            record.add(row, fp)
            report(row)
        return row

    return run_threads(grade_pair, todo, jobs)


def run_threads(work, items: list, jobs: int, stop: threading.Event | None = None) -> list:
    """``work(*item)`` for every item, in ``jobs`` threads that each take the next item when done; the results.

    Ctrl-C (or an error, or ``stop`` set) stops the threads from taking another item; the items already running
    finish (each records its row), then the Ctrl-C or the error is raised. Threads of its own, not a
    ThreadPoolExecutor: an executor starts its threads while items are submitted, and a Ctrl-C that lands then
    leaves a running thread it no longer waits for.
    """
    pending = queue.SimpleQueue()
    for item in items:
        pending.put(item)
    stop = threading.Event() if stop is None else stop
    results: list = []
    errors: list[BaseException] = []

    def worker() -> None:
        while not stop.is_set():
            try:
                item = pending.get_nowait()
            except queue.Empty:
                return
            try:
                results.append(work(*item))
            except BaseException as exc:  # raised in the calling thread below
                errors.append(exc)
                stop.set()

    threads = [threading.Thread(target=worker, name=f"grade-{i + 1}") for i in range(min(jobs, len(items)))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            _join(thread)
    except BaseException:
        stop.set()
        for thread in threads:
            if thread.ident is not None:  # started
                _join(thread)
        raise
    if errors:
        raise errors[0]
    return results


def _join(thread: threading.Thread) -> None:
    """Wait for ``thread``, waking twice a second: a SIGINT the OS gave another thread is raised here only when
    this thread runs Python code again."""
    while thread.is_alive():
        thread.join(0.5)


def course_notebooks(root: Path, submissions: Path) -> list[str]:
    """The notebooks to grade when none are named: those of an instructor's course (its ``source/``), else all;
    from an nbgrader course's ``submitted/``, only the assignments someone handed in (a week's LMS download
    holds one notebook: the others are not "missing" for every student)."""
    names = course.released_here(root) or notebook_names()
    folder = Path(submissions) / "submitted"
    if folder.is_dir():
        handed_in = {p.name for p in folder.glob("*/*") if p.is_dir()}
        names = [n for n in names if n in handed_in] or names
    return names


def status_counts(rows: list[Row]) -> str:
    """``"3 graded, 1 review, 2 failed (1 at the course's set-up)"``: the rows by status, set-up failures apart."""
    counts = {status: sum(r.status == status for r in rows) for status in MARKS}
    text = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    setup = sum(r.status == "failed" and r.message.startswith(setup_cell.FAILED) for r in rows)
    return text + (f" ({setup} at the course's set-up)" if setup else "")


def score_text(row: Row) -> str:
    return f"{'-' if row.score is None else f'{row.score:g}'}/{row.max_score:g}"


def table_lines(rows: list[Row]) -> list[str]:
    """The results table a command prints: a line per student, then the failed and the reviewed notebooks."""
    lines = []
    names = list(dict.fromkeys(r.notebook for r in rows))
    students = list(dict.fromkeys(r.student_id for r in rows))
    cell = {(r.student_id, r.notebook): r for r in rows}
    width = max([len(s) for s in students] + [10])
    lines.append(f"\n{'student':<{width}}  " + "  ".join(f"{n[:14]:>14}" for n in names))
    for s in students:
        parts = []
        for n in names:
            r = cell.get((s, n))
            text = "-" if r is None else score_text(r) + MARKS.get(r.status, "")
            parts.append(f"{text:>14}")
        lines.append(f"{s:<{width}}  " + "  ".join(parts))
    for r in rows:
        if r.status == "failed":
            lines.append(f"  FAILED {r.student_id}/{r.notebook}: {r.message}")
    setup_failed = [r for r in rows if r.status == "failed" and r.message.startswith(setup_cell.FAILED)]
    if setup_failed:
        lines.append(f"  {len(setup_failed)} notebook(s) not graded: the course's set-up cell failed in the grading "
                     "kernel, which is the machine's to fix, not the students' (`python -m graders autograde --check`"
                     "); the next run grades them again")
    reviews = [r for r in rows if r.status == "review"]
    for r in reviews:
        lines.append(f"  REVIEW {r.student_id}/{r.notebook}: {r.message}")
    if reviews:
        lines.append(f"  {len(reviews)} notebook(s) to review: `python -m graders review DIR` lists them; "
                     "`--accept` / `--reject STUDENT NOTEBOOK` decides")
    return lines


#: what the table adds to a score: a review is not a failure (its score, if shown, stands)
MARKS = {"graded": "", "review": " REVIEW", "failed": " FAIL"}
