"""Plain nbgrader against ``python -m graders autograde`` on the reference notebooks (issue 24, deliverable 4).

The reference notebooks (``solutions/NN_*.ipynb``), handed in by one student, are graded two ways,
interleaved in one run: repeat 1 plain then ours, repeat 2 ours then plain, and so on, so that a drift in
the machine's load falls on both sides alike.

plain  What an instructor with nbgrader alone runs: a course folder, ``nbgrader generate_assignment NAME``
       for each notebook, the student's notebook in ``submitted/<student>/NAME/NAME.ipynb``, then one
       ``python -m nbgrader autograde NAME --student <student> --force`` process per notebook.
       The course's ``nbgrader_config.py`` sets nothing but ``c.CourseDirectory.course_id``, the setting
       ``nbgrader quickstart`` writes for any course (its other line, a header notebook, is for its example).
       generate_assignment and autograde do not even read it (the exchange commands do), so every grading
       setting (the 30 s cell timeout, the kernel, stderr scoring 0, no IgnorePattern) is nbgrader's
       default. The commands run in the course folder, so nbgrader finds the course there (its default
       ``CourseDirectory.root`` is the working directory), as an instructor's would.
ours   ``python -m graders autograde SUBMISSIONS --out DIR --notebooks ...`` in one process (default
       ``--jobs 1``), with ``SUBMISSIONS/<student>/NAME.ipynb`` and a fresh DIR each repeat.

Both sides run with this interpreter's ``bin`` first on PATH (nbgrader runs ``alembic``) and without
``COURSE_QUICK`` (which would force a mode): each notebook runs its quick version because nbgrader sets
``NBGRADER_EXECUTION=autograde`` itself.

Generating the assignments is paid once per class, not per student, so it is timed apart and left out of
the ratio: before the first repeat each side's course is generated once (plain: the CLI commands above;
ours: ``DIR/course`` as ``graders.course.ensure`` builds it, which the grader's first run would
otherwise do), and every repeat grades into a fresh copy of it.

Measured per side and repeat: wall seconds, and CPU-seconds: user + sys of every process a command started,
the larger of two lower bounds, ``resource.getrusage(RUSAGE_CHILDREN)``'s delta around the command (this
process is a child subreaper, so a descendant orphaned on the way is reaped here and counted too) and the
sum of each descendant's own times sampled from ``/proc`` every 50 ms. Both are printed: rusage alone
misses the processes of a bubblewrap sandbox killed with its PID namespace, which ours' kernels run in.
Plain gives each notebook's wall (one
process each); ours gives each notebook's wall from the moment its progress line appears (the first one
includes the process's start). Both sides must give the reference full marks (plain: read from the
gradebook with nbgrader's API; ours: ``DIR/grades.csv``); a notebook that did not is reported under the
table and the run exits 1.

Then the class projection, 300 students x 8 notebooks, from the medians per notebook (the assumptions are
printed with it).

    python benchmarks/vs_nbgrader.py                                    # 8 notebooks, 2 repeats
    python benchmarks/vs_nbgrader.py --repeats 1 --json figures.json    # one repeat, every figure saved
    python benchmarks/vs_nbgrader.py --notebooks 06_bf16 --repeats 1    # a smoke run (a test)
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from graders.course import venv_env  # noqa: E402  (the repo on sys.path first)
from graders.paths import SOLUTIONS, notebook_names  # noqa: E402

STUDENT = "reference"
CLASS_STUDENTS = 300
#: ours prints ``[3/8] reference  03_async_timing  12/12 graded`` as each notebook ends
PROGRESS = re.compile(r"^\[(\d+)/(\d+)\]\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")
PLAIN_CONFIG = ("# nbgrader's defaults: only the course id, which `nbgrader quickstart` writes for every course\n"
                "c = get_config()  # noqa: F821\n"
                "c.CourseDirectory.course_id = 'vs-nbgrader'\n")


@dataclass
class Run:
    """One side's grading of every notebook in one repeat."""

    side: str  # "plain" or "ours"
    repeat: int
    load: float  # 1-minute load average just before the run
    wall_s: float = 0.0
    cpu_s: float = 0.0
    nb_wall: dict = field(default_factory=dict)  # notebook -> wall seconds
    nb_cpu: dict = field(default_factory=dict)  # notebook -> CPU-seconds (plain only: one process each)
    scores: dict = field(default_factory=dict)  # notebook -> [score, max] (None where there was none)
    problems: list = field(default_factory=list)  # what went wrong, one line each
    orphans: int = 0  # descendants reaped here after their parent ended
    start_s: float | None = None  # ours: wall before its first notebook's steady cost (see ours_start)
    rusage_s: float = 0.0  # the two CPU figures cpu_s is the larger of (see Sampler)
    sampled_s: float = 0.0

    def add(self, m: Measure) -> None:
        self.wall_s += m.wall_s
        self.cpu_s += m.cpu_s
        self.rusage_s += m.rusage_s
        self.sampled_s += m.sampled_s
        self.orphans += m.orphans


# ---------------------------------------------------------------------------------------------
# Measuring a command: wall and the CPU of every process it started
# ---------------------------------------------------------------------------------------------
def become_subreaper() -> bool:
    """Make orphaned descendants (a kernel whose parent died first) children of this process, so that
    reaping them adds their CPU to ``RUSAGE_CHILDREN``. Linux only; elsewhere they are not counted."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def children_left() -> list[int]:
    """The pids whose parent is this process (orphans handed to us, still running or zombies)."""
    me, pids = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            pids.append(int(stat.parent.name))
    return pids


def reap_orphans(grace_s: float = 10.0) -> int:
    """Wait for the orphans of the command that just ended (killing, by pid, any still alive after
    ``grace_s``), so that their CPU is counted; how many there were."""
    pids = children_left()
    alive, deadline = set(pids), time.monotonic() + grace_s
    while alive and time.monotonic() < deadline:
        for pid in list(alive):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    alive.discard(pid)
            except ChildProcessError:
                alive.discard(pid)
        if alive:
            time.sleep(0.2)
    for pid in alive:  # still our child (unreaped), so the pid cannot belong to anyone else yet
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return len(pids)


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


TICK = os.sysconf("SC_CLK_TCK")


def proc_stat(pid: int) -> tuple[int, float, str] | None:
    """(parent pid, CPU-seconds of all its threads so far, start time) of a live or zombie process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, fields[19]


class Sampler(threading.Thread):
    """Every ``interval`` s, the CPU-seconds so far of each process descending from ``root`` (orphans handed to
    this process included), from ``/proc``.

    ``RUSAGE_CHILDREN`` misses the CPU of a process tree that is never reaped into it: a sandbox's PID namespace
    killed as a whole (bubblewrap's) loses its processes' times on the way. The sum of the last values seen
    here is a lower bound too (a process's last ``interval`` and processes shorter than it are missed), so a
    command's CPU is the larger of the two."""

    def __init__(self, root: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.root, self.interval, self.done = root, interval, threading.Event()
        self.tree, self.others = {root}, set()  # pids of the command's processes, of everyone else's
        self.cpu: dict = {}  # (pid, start time) -> CPU-seconds last seen

    def run(self) -> None:
        while not self.done.is_set():
            self.sample()
            self.done.wait(self.interval)
        self.sample()

    def sample(self) -> None:
        live = {int(name) for name in os.listdir("/proc") if name.isdigit()}
        self.tree &= live
        self.others &= live
        me = os.getpid()
        for pid in sorted(live - self.tree - self.others):  # new since the last sample: whose child is it?
            stat = proc_stat(pid)
            if stat is not None:
                (self.tree if stat[0] in self.tree or stat[0] == me else self.others).add(pid)
        for pid in self.tree:
            stat = proc_stat(pid)
            if stat is not None:
                self.cpu[pid, stat[2]] = max(stat[1], self.cpu.get((pid, stat[2]), 0.0))

    def stop(self) -> float:
        self.done.set()
        self.join()
        return sum(self.cpu.values())


class Measure(NamedTuple):
    rc: int
    wall_s: float
    cpu_s: float  # the larger of the two below
    rusage_s: float  # RUSAGE_CHILDREN's delta
    sampled_s: float  # the /proc samples' sum
    orphans: int


def measured(command: list[str], cwd: Path, env: dict | None, log: Path, on_line=None) -> Measure:
    """Run ``command`` to its end, its output to ``log``; its wall seconds and the CPU of every process it started.

    ``on_line(line, seconds_since_start)`` sees every output line as it comes."""
    cpu0, start = cpu_children(), time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
        sampler = Sampler(proc.pid)
        sampler.start()
        for line in proc.stdout:
            out.write(line)
            if on_line:
                on_line(line, time.perf_counter() - start)
        rc = proc.wait()
    wall = time.perf_counter() - start
    sampled = sampler.stop()  # orphans not reaped yet: their last figures are read first
    orphans = reap_orphans()
    rusage = cpu_children() - cpu0
    return Measure(rc, wall, max(rusage, sampled), rusage, sampled, orphans)


def tail(log: Path, lines: int = 6) -> str:
    text = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return " | ".join(line.strip() for line in text[-lines:])


def say_load(what: str) -> float:
    load = os.getloadavg()
    print(f"load before {what}: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores", flush=True)
    return load[0]


# ---------------------------------------------------------------------------------------------
# The two sides
# ---------------------------------------------------------------------------------------------
def environment() -> dict:
    env = venv_env()  # this interpreter's bin first on PATH
    env.pop("COURSE_QUICK", None)  # nbgrader's NBGRADER_EXECUTION decides the mode, as for an instructor
    return env


def stray_configs() -> list[Path]:
    """nbgrader config files in Jupyter's config folders (``~/.jupyter`` ...): plain nbgrader would read them
    too, so its settings would not be the defaults."""
    from jupyter_core.paths import jupyter_config_path
    return [p for folder in jupyter_config_path() for p in Path(folder).glob("nbgrader_config.*")]


def make_plain_course(root: Path, names: list[str], env: dict) -> dict:
    """nbgrader's default course with every assignment generated; its cost (not in the ratio)."""
    root.mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(PLAIN_CONFIG)
    cost = {"wall_s": 0.0, "cpu_s": 0.0, "processes": len(names)}
    for name in names:
        source = root / "source" / name
        source.mkdir(parents=True)
        shutil.copy(SOLUTIONS / f"{name}.ipynb", source / f"{name}.ipynb")
        log = root.parent / f"plain-generate-{name}.log"
        m = measured([sys.executable, "-m", "nbgrader", "generate_assignment", name], root, env, log)
        if m.rc != 0:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed (exit {m.rc}): {tail(log)}")
        cost["wall_s"] += m.wall_s
        cost["cpu_s"] += m.cpu_s
    return cost


def make_ours_course(root: Path, names: list[str], env: dict) -> dict:
    """The course ``python -m graders autograde`` builds on its first run, built once; its cost."""
    code = ("import sys; from pathlib import Path; from graders import course; "
            "course.ensure(Path(sys.argv[1]), sys.argv[2:])")
    root.parent.mkdir(parents=True)
    log = root.parent.parent / "ours-course.log"
    m = measured([sys.executable, "-c", code, str(root), *names], REPO, env, log)
    if m.rc != 0:
        raise RuntimeError(f"building ours' course failed (exit {m.rc}): {tail(log)}")
    return {"wall_s": m.wall_s, "cpu_s": m.cpu_s, "processes": 1}


def plain_scores(root: Path, names: list[str], env: dict) -> dict:
    """Each notebook's [score, max] in the plain course's gradebook (nbgrader's API, in a child)."""
    out = subprocess.run([sys.executable, __file__, "--scores", str(root), STUDENT, *names],
                         capture_output=True, text=True, cwd=root, env=env)
    if out.returncode != 0:  # every notebook then reads "no grade recorded"; say why once
        print(f"reading {root / 'gradebook.db'} failed: {out.stderr.strip()[-1000:]}", flush=True)
        return {name: None for name in names}
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_scores(root: str, student: str, names: list[str]) -> None:
    """The child's side of :func:`plain_scores`: one JSON line."""
    import warnings
    warnings.filterwarnings("ignore")  # nbgrader's SQLAlchemy noise
    from nbgrader.api import Gradebook, MissingEntry
    scores = {}
    with Gradebook(f"sqlite:///{Path(root) / 'gradebook.db'}") as gradebook:
        for name in names:
            try:
                nb = gradebook.find_submission_notebook(name, name, student)
                scores[name] = [nb.score, nb.max_score]
            except MissingEntry:
                scores[name] = None
    print(json.dumps(scores))


def run_plain(seed: Path, work: Path, repeat: int, names: list[str], env: dict, bar) -> Run:
    """One nbgrader process per notebook, into a fresh copy of the generated course."""
    root = work / f"plain-{repeat}"
    shutil.copytree(seed, root)
    run = Run("plain", repeat, say_load(f"plain, repeat {repeat}"))
    for name in names:
        dest = root / "submitted" / STUDENT / name
        dest.mkdir(parents=True)
        shutil.copy(SOLUTIONS / f"{name}.ipynb", dest / f"{name}.ipynb")
        log = work / f"plain-{repeat}-{name}.log"
        bar.set_description(f"plain r{repeat} {name}")
        m = measured([sys.executable, "-m", "nbgrader", "autograde", name, "--student", STUDENT, "--force"],
                     root, env, log)
        run.nb_wall[name], run.nb_cpu[name] = m.wall_s, m.cpu_s
        run.add(m)
        if m.rc != 0:
            run.problems.append(f"plain {name}: nbgrader autograde exited {m.rc}: {tail(log)}")
        bar.update(1)
    run.scores = plain_scores(root, names, env)
    check_marks(run, names)
    return run


def run_ours(seed: Path, work: Path, repeat: int, names: list[str], env: dict, bar) -> Run:
    """``python -m graders autograde`` once for every notebook, into a fresh folder holding the built course."""
    subs, out = work / f"ours-{repeat}-submissions", work / f"ours-{repeat}"
    for name in names:
        (subs / STUDENT).mkdir(parents=True, exist_ok=True)
        shutil.copy(SOLUTIONS / f"{name}.ipynb", subs / STUDENT / f"{name}.ipynb")
    out.mkdir()
    shutil.copytree(seed, out / "course")
    run = Run("ours", repeat, say_load(f"ours, repeat {repeat}"))
    seen: list[tuple[str, float]] = []  # (notebook, seconds since start) as each progress line came

    def on_line(line: str, seconds: float) -> None:
        match = PROGRESS.match(line)
        if match and match.group(4) in names:
            seen.append((match.group(4), seconds))
            bar.set_description(f"ours r{repeat} {match.group(4)}")
            bar.update(1)

    log = work / f"ours-{repeat}.log"
    bar.set_description(f"ours r{repeat} starting")
    m = measured([sys.executable, "-m", "graders", "autograde", str(subs), "--out", str(out), "--notebooks", *names],
                 REPO, env, log, on_line)
    run.add(m)
    bar.update(len(names) - len(seen))  # notebooks that never printed a line
    previous = 0.0
    for name, seconds in seen:
        run.nb_wall[name], previous = seconds - previous, seconds
    run.start_s = ours_start(run.wall_s, [s for _, s in seen], len(names))
    if m.rc != 0:
        run.problems.append(f"ours: python -m graders autograde exited {m.rc}: {tail(log)}")
    run.scores = ours_scores(out, names)
    check_marks(run, names)
    return run


def ours_start(wall: float, stamps: list[float], count: int) -> float | None:
    """Ours' fixed cost per process (start, imports, warm-up, writing the gradebook's rows): its wall less
    ``count`` notebooks at the steady pace of the notebooks after the first. None under two notebooks."""
    if count < 2 or len(stamps) != count:
        return None
    steady = (stamps[-1] - stamps[0]) / (count - 1)
    return max(0.0, wall - count * steady)


def ours_scores(out: Path, names: list[str]) -> dict:
    scores: dict = {name: None for name in names}
    if not (out / "grades.csv").exists():
        return scores
    with open(out / "grades.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["student_id"] == STUDENT and row["notebook"] in scores:
                score = float(row["score"]) if row["score"] else None
                scores[row["notebook"]] = [score, float(row["max_score"]), row["status"]]
    return scores


def check_marks(run: Run, names: list[str]) -> None:
    """A problem line for every notebook that was not graded, or graded below full marks."""
    for name in names:
        got = run.scores.get(name)
        if got is None:
            run.problems.append(f"{run.side} {name}: no grade recorded")
        elif got[0] is None or got[1] <= 0 or got[0] != got[1] or (len(got) > 2 and got[2] != "graded"):
            status = f" ({got[2]})" if len(got) > 2 else ""
            run.problems.append(f"{run.side} {name}: {got[0]}/{got[1]}{status}, not full marks")


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------
def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summary(runs: list[Run], side: str, count: int) -> dict:
    mine = [r for r in runs if r.side == side]
    wall, cpu = median([r.wall_s for r in mine]), median([r.cpu_s for r in mine])
    return {"wall_s": wall, "cpu_s": cpu, "wall_per_notebook_s": wall / count, "cpu_per_notebook_s": cpu / count,
            "start_s": median([r.start_s for r in mine]), "full_marks": not any(r.problems for r in mine),
            "loads": [r.load for r in mine]}


def duration(seconds: float) -> str:
    if seconds >= 3 * 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def projection(sides: dict, notebooks: int, students: int, nodes: int, node_cores: int) -> dict:
    """Class wall times from the per-notebook medians: serial, ``--jobs C`` on C cores, Slurm."""
    total = students * notebooks
    cores = sorted({os.cpu_count() or 1, 16})
    table: dict = {"notebooks": total, "rows": {}}
    for side, s in sides.items():
        rows = {"serial": s["wall_per_notebook_s"] * total}
        for c in cores:
            rows[f"--jobs {c} on {c} cores"] = s["cpu_per_notebook_s"] * total / c
        start = s["start_s"] or 0.0
        rows[f"Slurm {nodes} nodes x {node_cores} cores"] = s["cpu_per_notebook_s"] * total / (nodes * node_cores) \
            + (start if side == "ours" else 0.0)
        table["rows"][side] = rows
    return table


def print_report(runs: list[Run], names: list[str], args, setup: dict) -> dict:
    count = len(names)
    print(f"\n{'repeat':<8}{'side':<7}{'load':>6}{'wall s':>9}{'CPU s':>9}{'CPU s/nb':>10}{'rusage':>8}{'/proc':>8}"
          f"{'orphans':>9}  marks")
    for r in runs:
        marks = "full" if not r.problems else f"{len(r.problems)} problem(s)"
        print(f"{r.repeat:<8}{r.side:<7}{r.load:>6.2f}{r.wall_s:>9.1f}{r.cpu_s:>9.1f}{r.cpu_s / count:>10.1f}"
              f"{r.rusage_s:>8.1f}{r.sampled_s:>8.1f}{r.orphans:>9}  {marks}")
    print("(CPU s: the larger of RUSAGE_CHILDREN's delta and the sum of the processes' own times sampled from /proc;"
          "\n rusage loses a sandbox's processes killed with their PID namespace, /proc misses each one's last "
          "50 ms)")
    print(f"\n{'notebook':<18}{'plain wall s':>13}{'plain CPU s':>12}{'ours wall s':>12}  (medians; ours: between "
          "progress lines, the first with its start)")
    for name in names:
        plain = [r for r in runs if r.side == "plain"]
        ours = [r for r in runs if r.side == "ours"]
        cells = [median([r.nb_wall.get(name) for r in plain]), median([r.nb_cpu.get(name) for r in plain]),
                 median([r.nb_wall.get(name) for r in ours])]
        widths = (13, 12, 12)
        shown = ("-" if v is None else f"{v:.1f}" for v in cells)
        print(f"{name:<18}" + "".join(f"{v:>{w}}" for v, w in zip(shown, widths, strict=True)))
    sides = {side: summary(runs, side, count) for side in ("plain", "ours")}
    print("\nmedians over repeats:")
    for side, s in sides.items():
        start = "" if s["start_s"] is None else f", fixed cost per process {s['start_s']:.1f} s"
        print(f"  {side:<6} wall {s['wall_s']:.1f} s ({s['wall_per_notebook_s']:.1f} s per notebook), "
              f"CPU {s['cpu_s']:.1f} s ({s['cpu_per_notebook_s']:.1f} CPU-s per notebook){start}")
    for side, cost in setup.items():
        print(f"  {side:<6} course set-up, once per class, not in the ratio: {cost['wall_s']:.1f} s wall, "
              f"{cost['cpu_s']:.1f} CPU-s ({cost['processes']} process(es))")
    ratio = sides["ours"]["wall_s"] / sides["plain"]["wall_s"]
    cpu_ratio = sides["ours"]["cpu_s"] / sides["plain"]["cpu_s"]
    paired = [o.wall_s / p.wall_s for p, o in zip([r for r in runs if r.side == "plain"],
                                                   [r for r in runs if r.side == "ours"], strict=True)]
    print(f"\nratio ours/plain: {ratio:.2f}x (target <= 0.60)")
    print(f"  CPU-seconds ours/plain: {cpu_ratio:.2f}x; wall ratio per repeat: "
          + ", ".join(f"{p:.2f}x" for p in paired))
    problems = [p for r in runs for p in r.problems]
    if problems:
        print("\nNOT FULL MARKS OR FAILED (the ratio compares unequal work):")
        for r in runs:
            for line in r.problems:
                print(f"  repeat {r.repeat}: {line}")
    else:
        print("both sides gave the reference full marks on every notebook in every repeat")
    per_student = len(notebook_names())
    proj = projection(sides, per_student, args.students, args.nodes, args.node_cores)
    print(f"\nclass projection: {args.students} students x {per_student} notebooks = {proj['notebooks']} notebooks, "
          f"from the medians per notebook above ({count} notebook(s) measured)")
    print(f"  {'':<32}{'plain nbgrader':>16}{'ours':>12}")
    for key in proj["rows"]["plain"]:
        print(f"  {key:<32}{duration(proj['rows']['plain'][key]):>16}{duration(proj['rows']['ours'][key]):>12}")
    start = sides["ours"]["start_s"]
    fixed = "not measured: under two notebooks" if start is None else f"{start:.1f} s"
    for line in (
            "assumptions: serial = wall per notebook x notebooks, one process after another at this run's pace;",
            "--jobs C = CPU-seconds per notebook x notebooks / C: every core busy, CPU-bound, memory enough",
            "(plain nbgrader has no --jobs: this assumes the class split into C courses, one gradebook each,",
            f"graded side by side; ours' CPU per notebook holds its process start spread over {count} notebook(s));",
            "Slurm = the same over nodes x cores, one array task per core, plus ours' fixed cost per process once",
            f"per task ({fixed}; plain pays its start in every notebook already); no queue wait, no merge job,",
            "nodes as fast as this machine."):
        print(f"  {line}")
    return {"ratio": ratio, "cpu_ratio": cpu_ratio, "paired_ratios": paired, "sides": sides, "projection": proj,
            "problems": problems}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="interleaved repeats (default 2)")
    parser.add_argument("--notebooks", nargs="*", default=None, help="only these notebooks (default: all eight)")
    parser.add_argument("--keep", type=Path, default=None, help="work in this new folder and keep it (logs, courses)")
    parser.add_argument("--json", type=Path, default=None, help="write every figure to this file")
    parser.add_argument("--students", type=int, default=CLASS_STUDENTS, help="class size of the projection")
    parser.add_argument("--nodes", type=int, default=10, help="Slurm nodes of the projection")
    parser.add_argument("--node-cores", type=int, default=16, help="cores per Slurm node of the projection")
    parser.add_argument("--scores", nargs="+", help=argparse.SUPPRESS)  # child: ROOT STUDENT NAME...
    args = parser.parse_args()
    if args.scores:
        print_scores(args.scores[0], args.scores[1], args.scores[2:])
        return 0
    names = args.notebooks or notebook_names()
    unknown = [n for n in names if not (SOLUTIONS / f"{n}.ipynb").exists()]
    if unknown or args.repeats < 1:
        parser.error(f"no solutions/<name>.ipynb for {', '.join(unknown)}" if unknown else "--repeats must be >= 1")
    if args.keep and args.keep.exists() and any(args.keep.iterdir()):
        parser.error(f"--keep {args.keep}: the folder is not empty")
    from tqdm import tqdm
    subreaper = become_subreaper()
    env = environment()
    with tempfile.TemporaryDirectory(prefix="vs-nbgrader-") as tmp:
        work = (args.keep or Path(tmp)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        print(f"grading {len(names)} reference notebook(s) as student {STUDENT!r}, {args.repeats} interleaved "
              f"repeat(s), in {work}; {sys.executable}; descendants "
              f"{'reaped here (subreaper)' if subreaper else 'orphaned to init are NOT counted (no subreaper)'}",
              flush=True)
        for path in stray_configs():
            print(f"WARNING: {path} applies to plain nbgrader too: its settings are not all the defaults")
        say_load("the course set-up")
        setup = {"plain": make_plain_course(work / "seed-plain", names, env),
                 "ours": make_ours_course(work / "seed-ours" / "course", names, env)}
        runs: list[Run] = []
        with tqdm(total=2 * len(names) * args.repeats, unit="nb", file=sys.stderr, mininterval=1) as bar:
            for repeat in range(1, args.repeats + 1):
                order = ("plain", "ours") if repeat % 2 else ("ours", "plain")
                for side in order:
                    if side == "plain":
                        runs.append(run_plain(work / "seed-plain", work, repeat, names, env, bar))
                    else:
                        runs.append(run_ours(work / "seed-ours" / "course", work, repeat, names, env, bar))
                    bar.clear()
                    print(f"repeat {repeat} {side}: {runs[-1].wall_s:.1f} s wall, {runs[-1].cpu_s:.1f} CPU-s"
                          + (f", {len(runs[-1].problems)} problem(s)" if runs[-1].problems else ""), flush=True)
        figures = print_report(runs, names, args, setup)
    if args.json:
        figures.update(runs=[asdict(r) for r in runs], setup=setup, notebooks=names, repeats=args.repeats,
                       cores=os.cpu_count(), python=sys.executable)
        args.json.write_text(json.dumps(figures, indent=2))
        print(f"wrote {args.json}")
    return 1 if figures["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
