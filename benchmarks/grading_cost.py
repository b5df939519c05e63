"""What grading costs: prints, in one run on this machine,

1. the autograde time of each reference notebook in quick mode, the floor (the same nbgrader run
   of a notebook that only imports torch and the helper package), their ratio, and the peak memory
   (largest resident set of nbgrader and its kernel) per notebook;
2. the time to grade a batch of synthetic students serially and with ``--jobs N``.

    python benchmarks/grading_cost.py                 # everything (about half an hour here)
    python benchmarks/grading_cost.py --no-batch      # part 1 only (a few minutes)
    python benchmarks/grading_cost.py --students 4    # a smaller batch
    python benchmarks/grading_cost.py --notebooks 06_bf16 --students 2 --repeats 1   # a smoke run (a test)

Each measurement grades in a fresh child process, so that its peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FLOOR = "00_floor"


def write_floor_notebook(folder: Path) -> None:
    """A notebook that only imports torch and the helper package, with one trivial test."""
    from graders.authoring import code, notebook, save, solution, tests
    save(notebook([
        code("imports", "import torch\nimport gpucourse.env, gpucourse.checks"),
        solution("answer", "def answer():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"),
        tests("test_answer", 1, "assert answer() == 1"),
    ]), folder / f"{FLOOR}.ipynb")


def grade_in_child(name: str, solutions: Path, work: Path, repeats: int) -> dict:
    """Grade the reference of ``name`` in a child process; wall seconds (median) and peak RSS.

    A child of its own, so that ``RUSAGE_CHILDREN`` there measures this notebook's grading only.
    """
    command = [sys.executable, __file__, "--child", name, str(solutions), str(work), str(repeats)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        raise RuntimeError(f"{name}: {out.stderr[-2000:]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    data["median_s"] = statistics.median(data["times"])
    return data


def child(name: str, solutions: Path, work: Path, repeats: int) -> None:
    """The child's side of :func:`grade_in_child`: prints one JSON line."""
    import resource

    from graders import nbtools
    from graders.grading.autograde import autograde
    from graders.grading.pipeline import grade_one
    from graders.grading.score import max_scores
    from graders.intake import student_files as intake
    from graders.limits import Limits

    subs, out = work / f"subs-{name}", work / f"out-{name}"
    shutil.rmtree(subs, ignore_errors=True)
    nbtools.write(nbtools.read(solutions / f"{name}.ipynb"), subs / "reference" / f"{name}.ipynb")
    autograde(subs, out, names=[name], progress=False, solutions=solutions)  # warm-up: course, caches
    root = out / "course"
    maximum = max_scores(root, [name])[name]
    limits = Limits.from_env()  # as autograde reads them, once
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        item = intake.intake_student(subs / "reference", [name])[name]
        row = grade_one(root, out, "reference", item, maximum, limits=limits)
        times.append(time.perf_counter() - start)
        assert row.status == "graded", row.message
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    print(json.dumps({"times": times, "peak_gib": peak, "score": row.score, "max": row.max_score}))


def per_notebook(work: Path, repeats: int, only: list[str] | None = None) -> None:
    from graders.paths import SOLUTIONS, notebook_names
    solutions = work / "solutions"
    solutions.mkdir()
    for path in SOLUTIONS.glob("*.ipynb"):
        shutil.copy(path, solutions)
    write_floor_notebook(solutions)
    floor = grade_in_child(FLOOR, solutions, work, repeats)
    print(f"\n{'notebook':<18}{'autograde s':>12}{'x floor':>9}{'peak GiB':>10}{'score':>9}")
    print(f"{FLOOR + ' (floor)':<18}{floor['median_s']:>12.2f}{1.0:>9.2f}{floor['peak_gib']:>10.2f}{'':>9}")
    total = 0.0
    names = only or notebook_names()
    for name in names:
        r = grade_in_child(name, solutions, work, repeats)
        total += r["median_s"]
        print(f"{name:<18}{r['median_s']:>12.2f}{r['median_s'] / floor['median_s']:>9.2f}"
              f"{r['peak_gib']:>10.2f}{r['score']:>5g}/{r['max']:<3g}", flush=True)
    print(f"{'all ' + str(len(names)):<18}{total:>12.2f}{total / (len(names) * floor['median_s']):>9.2f}"
          f"   (target: at most 2.00 x the floor in total)")


def batch(work: Path, students: int, jobs: int, only: list[str] | None = None) -> None:
    from graders import nbtools
    from graders.authoring.samples import reference_answers, submission
    from graders.grading.autograde import autograde
    from graders.paths import notebook_names
    subs = work / "batch"
    names = only or notebook_names()
    for name in names:
        nb = submission(name, reference_answers(name))
        for k in range(students):
            nbtools.write(nb, subs / f"student{k:03d}" / f"{name}.ipynb")
    times = {}
    for j in (1, jobs):
        print(f"load average before --jobs {j}: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
              "(at rest it is under 1)", flush=True)
        start = time.perf_counter()
        rows = autograde(subs, work / f"batch-out-{j}", names=names, jobs=j, progress=False)
        times[j] = time.perf_counter() - start
        assert all(r.status == "graded" and r.score == r.max_score for r in rows)
        print(f"{students} students x {len(names)} notebooks with --jobs {j}: {times[j]:.0f} s "
              f"({times[j] / (students * len(names)):.2f} s per submission)", flush=True)
    print(f"--jobs {jobs} / serial = {times[jobs] / times[1]:.2f}  (target: at most 0.60)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed gradings per notebook (median)")
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--no-batch", action="store_true", help="skip part 2")
    parser.add_argument("--batch-only", action="store_true", help="skip part 1")
    parser.add_argument("--notebooks", nargs="*", default=None, help="only these notebooks (default: all)")
    parser.add_argument("--child", nargs=4, metavar=("NAME", "SOLUTIONS", "WORK", "REPEATS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's SQLAlchemy noise
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    os.environ.setdefault("MPLBACKEND", "Agg")
    if args.child:
        name, solutions, work, repeats = args.child
        child(name, Path(solutions), Path(work), int(repeats))
        return 0
    with tempfile.TemporaryDirectory(prefix="grading-cost-") as tmp:
        if not args.batch_only:
            per_notebook(Path(tmp), args.repeats, args.notebooks)
        if not args.no_batch:
            batch(Path(tmp), args.students, args.jobs, args.notebooks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
