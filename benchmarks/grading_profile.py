"""Where the time of grading one notebook goes: prints a breakdown for ``docs/scaling.md``.

    python benchmarks/grading_profile.py                        # 01_devices, warm (the default)
    python benchmarks/grading_profile.py --cold                 # a new nbgrader process and kernel per notebook
    python benchmarks/grading_profile.py --notebook 07_compile --students 3

It grades the reference answers of one notebook for ``--students`` synthetic students in this process with
``graders.grading.autograde`` and times, per notebook: each step of the declared pipeline
(``graders.grading.pipeline``), and inside nbgrader's run, from the graded notebook's own execution
timestamps (nbclient records them): nbgrader's work before the kernel answers (process start, imports,
pre-processing, kernel start), the guard's cells, the notebook's cells, the test cells, and nbgrader's work
after the last cell (scoring, saving, the private gradebook). The once-per-run costs (the process's own
imports, the course set-up, starting the warm slot) are printed apart: a class pays them once.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

START = time.time()
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from graders.grading import autograde as autograde_mod  # noqa: E402
from graders.grading import execute, pipeline  # noqa: E402

try:
    from graders.grading import warm
except ImportError:  # a checkout from before the warm start (to profile it as it was)
    warm = None

IMPORTED = time.time()
TIMES: dict[str, list[float]] = defaultdict(list)


def timed(name, fn):
    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMES[name].append(time.perf_counter() - t)
    wrapper.__name__ = getattr(fn, "__name__", name)
    return wrapper


def instrument() -> None:
    pipeline.PREPARE = tuple(timed(f"step {s.__module__.rsplit('.', 1)[-1]}.{s.__name__}", s) for s in pipeline.PREPARE)
    pipeline.RUN = tuple(timed(f"step {s.__module__.rsplit('.', 1)[-1]}.{s.__name__}", s) for s in pipeline.RUN)
    pipeline.rundir.make = timed("run folder made", pipeline.rundir.make)
    if warm is not None:
        pipeline.rundir.remove = timed("run folder removed", pipeline.rundir.remove)
        warm.Slot.start_template = timed("once: slot template started (imports torch...)", warm.Slot.start_template)
        warm.Slot.start_worker = timed("once: slot nbgrader worker started", warm.Slot.start_worker)
    autograde_mod.record_run = timed("once: grades.csv and gradebook rows", autograde_mod.record_run)
    original = autograde_mod.course.ensure
    autograde_mod.course.ensure = timed("once: course set-up", original)
    autograde_mod.machine.prepare = timed("once: data and caches", autograde_mod.machine.prepare)


def stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def inside_nbgrader(graded: Path) -> dict[str, float]:
    """Seconds of the guard's cells, the notebook's cells and the test cells, from nbclient's timestamps."""
    nb = json.loads(graded.read_text())
    parts = {"cells: guard": 0.0, "cells: notebook": 0.0, "cells: tests": 0.0}
    first = last = None
    for cell in nb["cells"]:
        meta = cell.get("metadata", {})
        ex = meta.get("execution")
        if cell["cell_type"] != "code" or not ex or "iopub.execute_input" not in ex:
            continue
        begin, end = stamp(ex["iopub.execute_input"]), stamp(ex["shell.execute_reply"])
        first = begin if first is None else first
        last = end
        key = ("cells: guard" if meta.get("grader_guard") else
               "cells: tests" if meta.get("nbgrader", {}).get("grade") else "cells: notebook")
        parts[key] += end - begin
    parts["first"], parts["last"] = first or 0.0, last or 0.0
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebook", default="01_devices")
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="no warm slot: GRADER_WARM=0")
    args = parser.parse_args()
    if args.cold:
        os.environ["GRADER_WARM"] = "0"
    instrument()
    from graders.paths import SOLUTIONS
    work = Path(tempfile.mkdtemp(prefix="profile-"))
    for i in range(args.students):
        folder = work / "submissions" / f"student{i:02d}"
        folder.mkdir(parents=True)
        (folder / f"{args.notebook}.ipynb").write_bytes((SOLUTIONS / f"{args.notebook}.ipynb").read_bytes())
    nbgrader_spans: list[tuple[float, float]] = []
    run_nbgrader = execute.run_nbgrader

    def spans(fn):
        def wrapper(*a, **k):
            begin = time.time()
            result = fn(*a, **k)
            nbgrader_spans.append((begin, time.time()))
            return result
        return wrapper
    execute.run_nbgrader = spans(run_nbgrader)
    if warm is not None:
        warm.Slot.autograde = spans(warm.Slot.autograde)
    began = time.time()
    rows = autograde_mod.autograde(work / "submissions", work / "graded", names=[args.notebook], progress=False)
    total = time.time() - began
    inside = defaultdict(list)
    for (begin, end), row in zip(nbgrader_spans, rows, strict=True):  # paired in order: a count apart is a wrong table
        parts = inside_nbgrader(work / "graded" / "course" / "autograded" / row.student_id / args.notebook
                                / f"{args.notebook}.ipynb")
        inside["nbgrader: start, pre-processing, kernel start"].append(parts["first"] - begin)
        for key in ("cells: guard", "cells: notebook", "cells: tests"):
            inside[key].append(parts[key])
        inside["nbgrader: after the last cell (scores, save, gradebook)"].append(end - parts["last"])
    mode = "cold" if args.cold or warm is None or not warm.enabled() else "warm"
    print(f"{args.notebook}, {args.students} students, {mode}; rows: "
          + ", ".join(f"{r.score:g}/{r.max_score:g} {r.status}" for r in rows))
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'part':<60} {'median s':>9} {'count':>6}")
    print(f"{'once: this process imports graders':<60} {IMPORTED - START:9.2f} {1:6}")
    for name, values in list(TIMES.items()) + list(inside.items()):
        print(f"{name:<60} {statistics.median(values):9.2f} {len(values):6}")
    print(f"{'whole run (autograde())':<60} {total:9.2f} {1:6}")
    print(f"per notebook after the first: see the steps; whole run / students = {total / args.students:.2f} s")


if __name__ == "__main__":
    main()
