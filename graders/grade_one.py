"""Grading one notebook of one student, so that nothing in it can touch anything else.

1. The submission is repaired against the released notebook (:func:`graders.intake.repair`) and
   read for tampering (:func:`graders.tamper.static_scan`); guard cells are added
   (:mod:`graders.guard`).
2. ``nbgrader autograde`` runs in a *private* course folder made for this run alone (fresh copies of
   the configuration and the pristine gradebook, held in memory), in a process of its own with the
   limits of :mod:`graders.limits`, a private HOME and TMPDIR. The kernel's code cannot reach the
   shared gradebook: the guard's audit hook refuses it, and it is not where nbgrader writes.
3. Scores are read from the private gradebook, checked against the graded notebook's outputs and the
   released points, then published into the shared course folder (``root``): the graded and
   submitted notebooks and the grades, as if nbgrader had run there, for feedback and export.
4. If the kernel died or the notebook ran out of time, the cell that was running is found in the
   guard's log, neutralised, and the notebook graded again (at most twice): the student gets the
   points of what works, and the message says what was skipped.

Every outcome is a :class:`Row`: ``graded`` with its score; ``review`` when a tamper check found
something (:mod:`graders.review`: the repaired score kept, or withheld where nothing can repair
it); or ``failed`` with a reason.
"""

from __future__ import annotations

import copy
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import course, intake, limits, machine, nbtools, tamper
from . import review as review_mod
from .paths import COURSE_ID, REPO

FIELDS = ["student_id", "notebook", "score", "max_score", "status", "message"]
MAX_RERUNS = 2


@dataclass
class Row:
    student_id: str
    notebook: str
    score: float | None  # None: withheld for review
    max_score: float
    status: str  # "graded", "review" (see graders.review) or "failed"
    message: str = ""
    cells: dict = field(default_factory=dict)  # grade_id -> (score, max_score)
    review: "review_mod.Review | None" = None  # what a flagged notebook's row is rebuilt from

    def csv(self) -> dict:
        data = {k: getattr(self, k) for k in FIELDS}
        # an empty score is a score withheld for review: imports read it as "no grade yet", not 0
        data["score"] = "" if self.score is None else f"{self.score:g}"
        data["max_score"] = f"{self.max_score:g}"
        return data


#: CUDA reserves tens of GiB of *virtual* address space when it starts (inaccessible mappings), so on a
#: machine with an NVIDIA GPU an address-space cap would stop CUDA itself; the data-segment cap
#: (RLIMIT_DATA: private writable memory, what tensors and Python objects use) holds on every machine.
HAS_NVIDIA = Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia").exists()


def _limit_resources() -> None:  # runs in the child before exec; inherited by the kernel
    cap = int(limits.MEMORY_GIB * 2**30)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
    if not HAS_NVIDIA:  # a second line of defence (shared memory) where it costs nothing
        resource.setrlimit(resource.RLIMIT_AS, (2 * cap, 2 * cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()  # its own process group, so a timeout kills the kernel too


def run_nbgrader(root: Path, name: str, student: str, log_path: Path,
                 env: dict | None = None) -> tuple[int | None, str]:
    """Run ``nbgrader autograde`` for one notebook of one student; return (exit code or None, log)."""
    cmd = [sys.executable, "-m", "nbgrader", "autograde", name, "--student", student, "--force"]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env or course.venv_env(), stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_limit_resources)
        try:
            code = proc.wait(timeout=limits.NOTEBOOK_WALL_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            code = None
        try:  # the kernel is in the same process group: make sure nothing is left running
            os.killpg(proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
    return code, log_path.read_text(errors="replace")


GENERIC = ("Please see the", "There was an error processing", "Traceback (most recent call last)",
           "Removing failed assignment")


def failure_reason(code: int | None, log: str) -> str:
    """A sentence a person understands, from nbgrader's exit and log."""
    if code is None:
        return f"grading stopped after the {limits.NOTEBOOK_WALL_S} s limit for one notebook"
    if "DeadKernelError" in log or "Kernel died" in log:
        return ("the kernel died while running the notebook (a crash, os._exit, or memory over the "
                f"{limits.MEMORY_GIB:g} GiB limit)")
    if "Timeout waiting for execute reply" in log or "CellTimeoutError" in log:
        return (f"a cell ran past the {limits.CELL_TIMEOUT_S} s limit and the kernel did not answer "
                "the interrupt")
    if "MemoryError" in log:
        return f"the notebook ran out of memory (limit {limits.MEMORY_GIB:g} GiB)"
    if "partial credit cannot be greater" in log:
        return "a test cell ended in a number larger than its points"
    for line in reversed(log.splitlines()):
        if ("[AutogradeApp | ERROR]" in line or "Error" in line) and not any(g in line for g in GENERIC):
            return "nbgrader could not grade it: " + line.split("]")[-1].strip()[:200]
    return f"nbgrader exited with status {code}"


def cell_label(cell, index: int) -> str:
    """How a person finds a cell: its grade id, else its first line."""
    gid = nbtools.grade_id(cell)
    if gid:
        return gid
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return f"the cell starting {first[:40]!r}" if first else f"empty cell {index + 1}"


def _gradebook_cells(db: Path, student: str, name: str) -> tuple[dict, list[str]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}", course_id=COURSE_ID) as gb:
        sub = gb.find_submission_notebook(name, name, student)
        # the autograder's own scores: a manual grade the instructor gave earlier is not this run's result
        cells = {g.name: (float(g.auto_score or 0), float(g.max_score)) for g in sub.grades if g.max_score}
        pending = [g.name for g in sub.grades if g.max_score and g.auto_score is None and g.manual_score is None]
    return cells, pending


def max_scores(root: Path, names: list[str]) -> dict[str, float]:
    return {n: sum(nbtools.test_points(nbtools.read(root / "release" / n / f"{n}.ipynb")).values()) for n in names}


# ---------------------------------------------------------------------------------------------
# The private course folder of one run
# ---------------------------------------------------------------------------------------------
_PRISTINE: dict[str, dict[str, bytes]] = {}


def _pristine(root: Path) -> dict[str, bytes]:
    """The course files a run needs, read once: later runs cannot be fed a changed copy."""
    key = str(Path(root).resolve())
    if key not in _PRISTINE:
        files = {}
        files["gradebook.db"] = (Path(root) / "gradebook.db").read_bytes()
        # the project's settings, not the course's own config: every course grades the same way
        files["nbgrader_config.py"] = course.config_text().encode()
        for folder in ("source", "release"):
            for path in (Path(root) / folder).rglob("*"):
                if path.is_file():
                    files[str(path.relative_to(root))] = path.read_bytes()
        _PRISTINE[key] = files
    return _PRISTINE[key]


def _make_run_dir(root: Path, name: str) -> Path:
    run = Path(tempfile.mkdtemp(prefix="grade-"))
    for rel, data in _pristine(root).items():
        parts = Path(rel).parts
        if parts[0] in ("source", "release") and parts[1] != name:
            continue
        if parts[0] == "source" and rel.endswith(".ipynb"):
            continue  # the instructor's notebook (with solutions) is not needed to autograde
        dest = run / "course" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    (run / "course" / "source" / name).mkdir(parents=True, exist_ok=True)
    for sub in ("home", "tmp"):
        (run / sub).mkdir()
    return run


def _run_env(run: Path, key: str) -> dict:
    env = course.venv_env()
    env.update(HOME=str(run / "home"), TMPDIR=str(run / "tmp"), PYTHONNOUSERSITE="1",
               PYTHONDONTWRITEBYTECODE="1", COURSE_DATA=str(machine.data_dir()), GRADER_GUARD_KEY=key,
               GRADER_GUARD_LOG=str(run / "guard.log"),
               MPLCONFIGDIR=str(machine.mpl_dir()),
               # torch's compile caches default to a folder in /tmp: keep them inside the private run
               TORCHINDUCTOR_CACHE_DIR=str(run / "tmp" / "torchinductor"),
               TRITON_CACHE_DIR=str(run / "tmp" / "triton"))
    for var in ("PYTHONSTARTUP", "PYTHONPATH", "IPYTHONDIR", "JUPYTER_CONFIG_DIR", "JUPYTER_PATH",
                "JUPYTER_DATA_DIR", "PYTHONINSPECT"):
        env.pop(var, None)
    return env


def _guard_config(run: Path, student: str, name: str, release, source, out: Path, item: intake.Intake,
                  root: Path, poisoned: list[str]) -> dict:
    sources = [c.source for c in release.cells if c.cell_type == "code" and not nbtools.is_solution_cell(c)]
    sources += [c.source for c in source.cells if nbtools.is_test_cell(c)]
    read_deny = [str(REPO / "solutions"), str(REPO / ".git"), str(REPO / "graders"), str(REPO / "samples"),
                 str(Path(out).resolve()), str(Path(root).resolve()), str(run)]
    if item.folder is not None:
        read_deny.append(str(Path(item.folder).resolve().parent))
    return {
        "cwd": str(run / "course" / "autograded" / student / name),
        "write_roots": [str(run / "tmp"), str(run / "home"), str(machine.data_dir()), str(machine.mpl_dir())],
        "read_deny": read_deny,
        "library_roots": [str(REPO / "gpucourse")],
        "protected_modules": tamper.PROTECTED_MODULES + tamper.imported_modules(sources),
        "protected_prefixes": tamper.PROTECTED_PREFIXES,
        "preload": tamper.PRELOAD + tamper.imported_modules([c.source for c in source.cells if nbtools.is_test_cell(c)]),
        "trusted_sources": sorted(tamper.source_hash(s) for s in sources),
        "graded": tamper.graded_functions(release),
        "namespace_modules": tamper.namespace_modules(sources, [c.source for c in source.cells
                                                                if nbtools.is_test_cell(c)]),
        "test_names": tamper.test_names([c.source for c in source.cells if nbtools.is_test_cell(c)]),
        "max_output_chars": limits.MAX_OUTPUT_CHARS,
        "poisoned": poisoned,
    }


def _score_from_notebook(graded_nb) -> dict[str, tuple[float, float]]:
    from nbgrader.utils import determine_grade, is_grade

    cells = {}
    for cell in graded_nb.cells:
        if is_grade(cell) and not nbtools.is_solution_cell(cell):
            score, mx = determine_grade(cell)
            cells[nbtools.grade_id(cell)] = (float(score or 0), float(mx))
    return cells


def _timeouts(graded_nb) -> list[str]:
    found = []
    for index, cell in enumerate(graded_nb.cells):
        if cell.cell_type != "code" or cell.metadata.get("grader_guard"):
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error" and output.get("ename") in ("CellTimeoutError",
                                                                               "KeyboardInterrupt"):
                found.append(cell_label(cell, index))
                break
    return found


#: one writer at a time into the shared course folder and its SQLite gradebook (``--jobs`` threads)
PUBLISH_LOCK = threading.Lock()


def _publish(run: Path, root: Path, student: str, name: str, item: intake.Intake) -> None:
    """Put the run's graded notebook, the submission as handed in, and the grades into the course folder.

    As ``nbgrader autograde`` does in place: the graded copy replaces the last one; a manual grade
    given in the formgrader is kept (and the cell marked for a second look, as nbgrader marks it).
    """
    with PUBLISH_LOCK:
        src = run / "course" / "autograded" / student / name
        dest = Path(root) / "autograded" / student / name
        if dest.exists():
            shutil.rmtree(dest, ignore_errors=True)
        if src.exists():
            shutil.copytree(src, dest, symlinks=False, ignore=shutil.ignore_patterns("*.lnk"))
        _file_submission(root, student, name, item)
        _publish_grades(run, root, student, name)


def _file_submission(root: Path, student: str, name: str, item: intake.Intake) -> None:
    """The student's file as handed in (not the guarded copy) in ``submitted/``, unless it is there already."""
    folder = Path(root) / "submitted" / student / name
    target = folder / f"{name}.ipynb"
    if item.path is not None and Path(item.path).resolve() == target.resolve():
        return  # graded in place: the course's own submitted/ (collect, nbgrader collect)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(item.nb, str(target))
    stamp = Path(item.path).parent / "timestamp.txt" if item.path is not None else None
    if stamp is not None and stamp.is_file():
        shutil.copy(stamp, folder / "timestamp.txt")


def _publish_grades(run: Path, root: Path, student: str, name: str) -> None:
    from nbgrader.api import Gradebook

    private = f"sqlite:///{run / 'course' / 'gradebook.db'}"
    with Gradebook(private, course_id=COURSE_ID) as gb:
        sub = gb.find_submission_notebook(name, name, student)
        timestamp = gb.find_submission(name, student).timestamp
        grades = {g.name: g.auto_score for g in sub.grades}
        comments = {c.name: c.auto_comment for c in sub.comments}
    with Gradebook(f"sqlite:///{Path(root) / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(name, student, **({"timestamp": timestamp} if timestamp else {}))
        for gid, auto in grades.items():
            grade = gb.find_grade(gid, name, name, student)
            before, grade.auto_score = grade.auto_score, auto
            # nbgrader asks for a second look at every manual grade; here only where the autograder's
            # score moved (a changed submission), so an unchanged regrade leaves the gradebook as it was
            grade.needs_manual_grade = auto is None or (grade.manual_score is not None and before != auto)
        for gid, text in comments.items():
            try:
                gb.find_comment(gid, name, name, student).auto_comment = text
            except Exception:  # noqa: BLE001  (a comment cell nbgrader did not create)
                pass
        gb.db.commit()


# ---------------------------------------------------------------------------------------------
def _neutralise(nb, cell_hash: str | None, test: str | None) -> str | None:
    """Replace the cell whose source hash is ``cell_hash`` by one that raises; its label, or None."""
    if cell_hash is None:
        return None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and tamper.source_hash(cell.source) == cell_hash:
            if nbtools.is_test_cell(cell) or cell.metadata.get("grader_guard"):
                return None
            label = cell_label(cell, index)
            cell.source = ("raise RuntimeError('The autograder skipped this cell: it stopped the kernel "
                           "or ran out of time when the notebook was graded.')\n")
            return label
    return None


def _log_findings(log_path: Path, evidence: list[str]) -> None:
    with open(log_path, "a") as log:
        log.write("=== findings (for review)\n" + "\n".join(evidence) + "\n")


def grade_one(root: Path, out: Path, student: str, item: intake.Intake, max_score: float) -> Row:
    name = item.notebook
    if item.problem:
        return Row(student, name, 0.0, max_score, "failed", item.problem)
    root = Path(root)
    release = nbtools.read(root / "release" / name / f"{name}.ipynb")
    source_nb = nbformat.reads(_pristine(root)[f"source/{name}/{name}.ipynb"].decode(), as_version=4)
    points = nbtools.test_points(release)
    tests = list(points)
    nb = copy.deepcopy(item.nb)
    notes = list(item.notes) + intake.repair(nb, release)

    trusted_sources = [c.source for c in release.cells if c.cell_type == "code" and not nbtools.is_solution_cell(c)]
    trusted_sources += [c.source for c in source_nb.cells if nbtools.is_test_cell(c)]
    trusted = {tamper.source_hash(s) for s in trusted_sources}
    findings = [str(f) for f in tamper.static_scan(nb, trusted, [c.source for c in source_nb.cells
                                                                 if nbtools.is_test_cell(c)])]

    log_path = out / "logs" / student / f"{name}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text("")
    submitted = review_mod.digest(item.nb)
    if findings and not limits.RUN_FLAGGED:
        log_path.write_text("=== findings (static scan; not run)\n" + "\n".join(findings) + "\n")
        review = review_mod.Review(submitted, withheld=True, evidence=findings + [
            "not run (GRADER_RUN_FLAGGED=0): grade it again with GRADER_RUN_FLAGGED=1 for nbgrader's score"],
            notes=notes, cells={gid: (0.0, pts) for gid, pts in points.items()}, ran=False)
        return review_mod.apply(Row(student, name, None, max_score, "review"), review, [])
    watch = tamper.FileWatch(deep=[REPO / "gpucourse"] + ([Path(item.folder).resolve().parent]
                                                          if item.folder is not None else []),
                             shallow=tamper.site_packages()) if limits.WATCH_FILES else None
    poisoned: list[str] = []
    skipped: list[str] = []
    evidence: list[str] = []  # every finding of every attempt: the review's evidence
    for attempt in range(MAX_RERUNS + 1):
        run = _make_run_dir(root, name)
        try:
            key = tamper.new_key()
            config = _guard_config(run, student, name, release, source_nb, out, item, root, poisoned)
            guards = tamper.guard_sources(key[:12], config, tests)
            graded_input = tamper.insert_guards(copy.deepcopy(nb), guards)
            dest = run / "course" / "submitted" / student / name / f"{name}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(graded_input, str(dest))
            stamp = Path(item.path).parent / "timestamp.txt" if item.path is not None else None
            if stamp is not None and stamp.is_file():  # nbgrader records it as the submission's time
                shutil.copy(stamp, dest.parent / "timestamp.txt")
            with open(log_path, "a") as log:
                log.write(f"=== attempt {attempt + 1}: {run}\n")
            code, log_text = run_nbgrader(run / "course", name, student, log_path, env=_run_env(run, key))
            graded = run / "course" / "autograded" / student / name / f"{name}.ipynb"
            ok = code == 0 and graded.exists()
            report = tamper.read_log(run / "guard.log", key.encode(), tests, ran=ok)
            changed = watch.check() if watch else []
            # what no repair undoes withholds the score; everything else is evidence for a review
            broken = report.unrepairable + [f"changed files outside its folder: {c}" for c in changed]
            evidence = list(dict.fromkeys(evidence + findings + report.tampering + broken))
            if not ok and not broken and attempt < MAX_RERUNS:
                last = tamper.last_cell(run / "guard.log", key.encode())
                label = _neutralise(nb, last.get("hash"), last.get("test")) if last else None
                if label is not None:
                    skipped.append(f"without {label} ({failure_reason(code, log_text)})")
                    continue
                if last and last.get("test") and last["test"] not in poisoned:
                    poisoned.append(last["test"])
                    skipped.append(f"with {last['test']} failed at once, since running it stopped the grading "
                                   f"({failure_reason(code, log_text)})")
                    continue
            if not ok:
                reason = failure_reason(code, log_text)
                if evidence:
                    _log_findings(log_path, evidence)
                    reason += " (also found: " + "; ".join(evidence[:4]) + "; the log has every finding)"
                return Row(student, name, 0.0, max_score, "failed", "; ".join([reason] + skipped))
            cells, pending = _gradebook_cells(run / "course" / "gradebook.db", student, name)
            graded_nb = nbtools.read(graded)
            from_nb = _score_from_notebook(graded_nb)
            honest = {gid: (min(from_nb.get(gid, (0.0, 0.0))[0], pts), pts) for gid, pts in points.items()}
            if any(abs(cells.get(gid, (0.0, 0.0))[0] - honest[gid][0]) > 1e-9 for gid in points):
                broken.append("the gradebook and the graded notebook disagree")
            # a test during which something was tampered with proves nothing: 0 until a review accepts it
            untrusted = [gid for gid in points if report.per_test.get(gid) and honest[gid][0] > 0]
            # what changes the score first: the message quotes only the first few
            zeroed = [f"{gid} scores 0 until reviewed (nbgrader gave {honest[gid][0]:g}): "
                      + "; ".join(report.per_test[gid][:2]) for gid in untrusted]
            evidence = list(dict.fromkeys(broken + zeroed + evidence))
            total = sum(s for s, _ in honest.values())
            _publish(run, root, student, name, item)
            timed_out = _timeouts(graded_nb)
            extra = []
            if skipped:
                extra.append("graded again " + "; and again ".join(skipped))
            if timed_out:
                extra.append(f"stopped after the {limits.CELL_TIMEOUT_S} s cell limit: " + ", ".join(timed_out))
            if pending:
                extra.append("not graded automatically: " + ", ".join(pending))
            if report.notes:
                extra.append("note: " + "; ".join(report.notes[:3]))
            row = Row(student, name, total, max_score, "graded", "; ".join(notes + extra), cells=honest)
            if not evidence:
                return row
            _log_findings(log_path, evidence)
            review = review_mod.Review(submitted, withheld=bool(broken), evidence=evidence, notes=notes + extra,
                                       cells=honest, untrusted=untrusted)
            return review_mod.apply(row, review, [])  # pending; graders.autograde applies the decisions
        finally:
            shutil.rmtree(run, ignore_errors=True)
    return Row(student, name, 0.0, max_score, "failed", "; ".join(skipped) or "could not be graded")
