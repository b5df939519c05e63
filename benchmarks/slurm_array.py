"""A Slurm job array of shards against ``autograde --jobs`` on the same cores.

Grades N synthetic students (the three samples copied under new ids) twice, on this machine:
``autograde --jobs J`` in one process, and ``submit-slurm --shards S --cpus-per-task 1`` on a
one-node cluster of J cpus (``graders.qa.slurm_cluster``), so at most J tasks run at once. Prints the
wall time of each, the time of every shard (from its log), the array alone, the merge job, the cost
per submission, and the ratio array / ``--jobs`` (target: at most 1.15). Checks both give the same
``grades.csv``.

    python benchmarks/slurm_array.py --students 16            # the issue's size
    python benchmarks/slurm_array.py --students 4 --shards 3  # a smoke run
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def make_students(dest: Path, count: int, notebook: str) -> None:
    from graders.paths import SAMPLES
    kinds = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())
    for k in range(count):
        folder = dest / f"student{k + 1:03d}"
        folder.mkdir(parents=True)
        shutil.copy(SAMPLES / kinds[k % len(kinds)] / f"{notebook}.ipynb", folder)


def rows(path: Path) -> list[tuple]:
    with open(path, newline="") as f:
        return [(r["student_id"], r["notebook"], r["score"], r["status"]) for r in csv.DictReader(f)]


def timed(command: list[str]) -> float:
    start = time.monotonic()
    subprocess.run(command, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=16)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--jobs", type=int, default=2, help="cores: --jobs of autograde, cpus of the cluster")
    p.add_argument("--notebook", default="01_devices")
    args = p.parse_args()
    from graders.grading import slurm
    from graders.qa.slurm_cluster import local_cluster

    tmp = Path(tempfile.mkdtemp(prefix="slurm-bench-"))
    subs = tmp / "submissions"
    make_students(subs, args.students, args.notebook)
    py = [sys.executable, "-m", "graders"]
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    jobs_s = timed(py + ["autograde", str(subs), "--out", str(tmp / "jobs"), "--notebooks", args.notebook,
                         "--jobs", str(args.jobs), "--quiet"])
    print(f"autograde --jobs {args.jobs}: {jobs_s:.1f} s", flush=True)
    work = tmp / "work"
    with local_cluster(tmp / "cluster", cpus=args.jobs):
        array_s = timed(py + ["submit-slurm", str(subs), "--work", str(work), "--shards", str(args.shards),
                              "--notebooks", args.notebook, "--cpus-per-task", "1", "--wait", "--timeout", "3600"])
    plan = slurm.Plan.load(work)
    times = slurm.shard_times(plan)
    sizes = {str(i): len(s) for i, s in slurm.shard_students(plan).items()}
    shards = sorted(k for k in times if k != "merge")
    first = min(times[k][0] for k in shards)
    last = max(times[k][1] for k in shards)
    n = args.students
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(f"\n{n} students x 1 notebook ({args.notebook}), {args.shards} shards, {args.jobs} cpus\n")
    print("| shard | students | wall s |\n|---|---:|---:|")
    for k in shards:
        print(f"| {k} | {sizes[k]} | {times[k][1] - times[k][0]:.1f} |")
    print("\n| run | wall s | per submission s |\n|---|---:|---:|")
    print(f"| `autograde --jobs {args.jobs}` | {jobs_s:.1f} | {jobs_s / n:.2f} |")
    print(f"| array: first task start to last task end | {last - first:.1f} | {(last - first) / n:.2f} |")
    print(f"| merge job (merge + LMS export) | {times['merge'][1] - times['merge'][0]:.1f} | |")
    print(f"| `submit-slurm --wait`, submit to report | {array_s:.1f} | {array_s / n:.2f} |")
    print(f"\nratio array / --jobs: {(last - first) / jobs_s:.2f}; "
          f"whole submit-slurm / --jobs: {array_s / jobs_s:.2f} (target <= 1.15)")
    same = rows(work / "graded" / "grades.csv") == rows(tmp / "jobs" / "grades.csv")
    print(f"merged grades.csv equals --jobs grades.csv: {same}")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
