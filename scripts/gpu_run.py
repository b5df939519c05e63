#!/usr/bin/env python
"""Run the course on a real CUDA GPU, within a time budget, and publish what it measured: ``docs/gpu-results.md``.

    python scripts/gpu_run.py                       # everything, on a machine with a CUDA GPU (8 minutes)
    python scripts/gpu_run.py --dry-run             # anywhere: the plan, the stages' budgets, the figures expected
    python scripts/gpu_run.py --page-from DIR       # anywhere: the page again from a run's folder

Stages, each with a deadline from the budget plan it prints first (``--budget``, 480 s by default: a 16-core
H100/H200-class machine runs them all in less); the page and ``WORK/gpu-results.json`` are rewritten as each
notebook and each stage ends, so a run stopped at any point keeps everything it finished:

1. ``notebooks_alone``: the solution notebooks that print figures (a ``RESULT`` line in their source), one at a
   time in full mode (``COURSE_QUICK=0``), so that nothing beside them disturbs what they time;
2. ``direct``: measurements this script takes itself, alone (scripts/gpurun/measure.py);
3. ``notebooks_parallel``: the other notebooks, three at a time, with ``pytest -m cuda`` beside them;
4. ``grading``: ``python -m graders autograde samples/submissions --jobs N`` (N: the cores), every row compared
   with what the CPU grader gives it (the expectations of ``python -m graders samples --check``): a table and a
   one-line verdict.

A stage that would start with too little of its budget left is skipped, "skipped: out of time"; one that runs
past its deadline is stopped, and what it finished is kept. Without a CUDA GPU it says so and exits with status
2, having changed nothing. The page records the machine: GPU, driver, torch, CUDA, cores, where the Python and
its torch live (torch outside ``sys.prefix``?), and whether bubblewrap is there.

RESULT CONVENTION. A notebook publishes a measured figure by printing one line::

    print(f"RESULT h2d_pinned_gbps = {gbps:.1f} GB/s")

``RESULT``, a key (letters, digits, ``_ . -``), ``=``, then the value as text (number first, unit after it).
The figures a run expects are every such line in ``sources/*.py``, read when it starts (a key built with an
f-string field, ``RESULT eps_{name} = ...``, expects every key it can print); the page lists each with its value
or why it has none, "(not printed: <notebook> did not reach the line)". A later line with the same key wins.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.gpurun import figures, grading, notebook, plan  # noqa: E402 (needs REPO on sys.path)
from scripts.gpurun.jobs import Job, run_jobs  # noqa: E402
from scripts.gpurun.page import page, run_from_dir  # noqa: E402

SELF = Path(__file__).resolve()
#: The whole run, as issue 33 asks: under 8 minutes on a 16-core H100/H200-class machine.
BUDGET_S = 480
#: Notebooks run at once in the parallel stage (one GPU, 16 cores: each notebook's kernel uses several).
AT_ONCE = 3


def stages_for(names: list[str], timed: set[str], args, jobs: int, known: dict[str, float]) -> list[plan.Stage]:
    """The stages this run will run, with their estimates; the budget is shared out by ``plan.plan``."""
    alone = [n for n in names if n in timed]
    others = [n for n in names if n not in timed]
    stages = []
    if not args.skip_notebooks and alone:
        stages.append(plan.Stage("notebooks_alone", f"{', '.join(alone)}, one at a time (they print figures)",
                                 sum(plan.notebook_estimate(n, known) for n in alone)))
    stages.append(plan.Stage("direct", "direct measurements, alone", known["direct"]))
    beside = [] if args.skip_notebooks else others
    if beside or not args.skip_tests:
        parts = [f"{', '.join(beside)} ({AT_ONCE} at a time)"] if beside else []
        parts += [] if args.skip_tests else ["`pytest -m cuda`"]
        stages.append(plan.Stage("notebooks_parallel", " beside ".join(parts),
                                 max(plan.parallel_estimate(beside, AT_ONCE, known),
                                     0 if args.skip_tests else known["cuda_tests"] * plan.CONTENTION)))
    if not args.skip_grading:
        stages.append(plan.Stage("grading", f"the samples graded, --jobs {jobs}", known["grading"]))
    return stages


class Run:
    """The run's record, written out (page and json) whenever something in it ends."""

    def __init__(self, args, names: list[str], expected: list[figures.Expected], stages: list[plan.Stage]):
        self.args, self.names, self.stages = args, names, stages
        self.started = time.monotonic()
        self.data = {"command": "python scripts/gpu_run.py " + " ".join(sys.argv[1:]), "total_s": args.budget,
                     "plan": [vars(s) for s in stages], "stages": {}, "machine": {}, "commit": args.commit,
                     "expected": [vars(e) for e in expected], "notebooks": [], "direct": None, "tests": None,
                     "grading": None}

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def deadline(self, stage: plan.Stage) -> float:
        return self.started + stage.deadline_s

    def status(self, name: str, status: str, seconds: float | None = None) -> None:
        self.data["stages"][name] = {"status": status, **({"seconds": seconds} if seconds is not None else {})}
        print(f"  {name}: {status}" + (f" ({seconds:.0f} s)" if seconds is not None else ""), flush=True)
        self.save()

    def save(self) -> None:
        self.args.out.parent.mkdir(parents=True, exist_ok=True)
        self.args.out.write_text(page(self.data), encoding="utf-8")
        (self.args.work / "gpu-results.json").write_text(json.dumps(self.data, indent=1, default=str))

    def stage(self, name: str):
        """The plan's stage ``name``, or None when it is to be skipped: not in the plan, or out of time."""
        stage = next((s for s in self.stages if s.name == name), None)
        if stage is None:
            return None
        left = stage.left(self.elapsed())
        if left < plan.MIN_STAGE_S:
            self.status(name, f"skipped: out of time ({max(left, 0):.0f} s of its budget left)")
            return None
        print(f"gpu_run: {name} ({left:.0f} s until its deadline): {stage.what}", flush=True)
        return stage


def notebook_jobs(names: list[str], work: Path, timeout: int) -> list[Job]:
    from graders.paths import SOLUTIONS

    return [Job(name, [sys.executable, str(SELF), "--execute-one", str(SOLUTIONS / f"{name}.ipynb"),
                       "--executed", str(work / "executed"), "--timeout", str(timeout)],
                work / "logs" / f"{name}.log", env=notebook.environment()) for name in names]


def run_notebooks(run: Run, stage: plan.Stage, names: list[str], at_once: int, extra: list[Job] = ()) -> None:
    executed = run.args.work / "executed"

    def ended(job: Job) -> None:
        if job.name == "cuda_tests":
            run.data["tests"] = tests_record(job)
            run.status("cuda_tests", run.data["tests"]["summary"], job.seconds)
            return
        if job.outcome == "skipped: out of time":
            print(f"    {job.name}: skipped: out of time", flush=True)
            return
        record = notebook.record(job.name, executed, job.outcome, job.seconds)
        run.data["notebooks"].append(record)
        print(f"    {job.name}: {record['seconds']:.0f} s {record['error'] or 'ok'}", flush=True)
        for key, (value, _) in record["figures"].items():
            print(f"      RESULT {key} = {value}", flush=True)
        run.save()

    start = time.monotonic()
    jobs = list(extra) + notebook_jobs(names, run.args.work, run.args.timeout)
    run_jobs(jobs, at_once + len(extra), run.deadline(stage), ended)
    outcomes = {job.outcome for job in jobs}
    run.status(stage.name, "stopped at its deadline" if outcomes - {"finished"} else "done",
               time.monotonic() - start)


def cuda_tests_job(work: Path) -> Job:
    return Job("cuda_tests", [sys.executable, "-m", "pytest", "-m", "cuda", "-q", "-rs", "-p", "no:cacheprovider"],
               work / "logs" / "pytest-cuda.log", cwd=REPO)


def tests_record(job: Job) -> dict:
    lines = job.text().strip().splitlines()
    summary = lines[-1] if lines and job.outcome == "finished" else job.outcome
    return {"returncode": job.returncode, "summary": summary, "tail": "\n".join(lines[-30:]), "seconds": job.seconds}


def run_direct(run: Run, stage: plan.Stage) -> None:
    into = run.args.work / "direct.json"
    job = Job("direct", [sys.executable, str(SELF), "--measure-into", str(into)], run.args.work / "logs" / "direct.log",
              echo=True)
    run_jobs([job], 1, run.deadline(stage))
    if job.outcome == "finished" and into.exists():
        run.data["direct"] = json.loads(into.read_text())
        run.status("direct", "done", job.seconds)
    else:
        run.status("direct", job.outcome if job.outcome != "finished" else f"FAILED (exit {job.returncode}): see "
                   f"{job.log}", job.seconds)


def run_grading(run: Run, stage: plan.Stage, jobs: int) -> None:
    from graders.paths import SAMPLES

    out = run.args.work / "graded"
    cmd = [sys.executable, "-m", "graders", "autograde", str(SAMPLES), "--out", str(out),
           "--jobs", str(jobs), "--notebooks", *run.names]
    job = Job("grading", cmd, run.args.work / "logs" / "grading.log", cwd=REPO, echo=True)
    run_jobs([job], 1, run.deadline(stage), lambda job: record_grading(run, job, out, jobs), tick_s=2)
    run.status("grading", "done" if job.outcome == "finished" else job.outcome, job.seconds)


def record_grading(run: Run, job: Job, out: Path, jobs: int) -> None:
    """The rows graded so far, each against the CPU's expectation, into the run's record."""
    rows, source = grading.graded_rows(out, job.text())
    table = grading.compare_rows(rows, run.names)
    run.data["grading"] = {"table": table, "verdict": grading.verdict(table), "seconds": job.seconds,
                           "source": source, "devices": grading.devices_seen(out.rglob("autograded/*/*/*.ipynb")),
                           "command": f"python -m graders autograde samples/submissions --jobs {jobs}"}
    print("\n".join(grading.table_lines(table) + [grading.verdict(table)]), flush=True)
    run.save()


def parse(argv: list[str] | None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "gpu-results.md")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--notebooks", nargs="*", default=None)
    parser.add_argument("--budget", type=float, default=BUDGET_S, help="seconds for the whole run (default 480)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="grading slots (default: the cores)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per notebook cell")
    parser.add_argument("--estimates-from", type=Path, default=None, metavar="JSON",
                        help="plan with what a previous run took (its gpu-results.json) instead of the H200's times")
    parser.add_argument("--commit", default=None, help="the commit measured, where the tree has no .git")
    parser.add_argument("--skip-notebooks", action="store_true")
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--skip-grading", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and the expected figures; run nothing")
    parser.add_argument("--page-from", type=Path, default=None, metavar="DIR",
                        help="write the page from a run's folder (gpu-results.json, executed/, grade.log); no GPU")
    # the processes the stages start (not for use by hand)
    parser.add_argument("--execute-one", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--executed", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--measure-into", type=Path, default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.execute_one:
        return 1 if notebook.execute(args.execute_one, args.executed, args.timeout)["error"] else 0
    if args.measure_into:
        from scripts.gpurun.measure import measure

        args.measure_into.write_text(json.dumps(measure(), indent=1))
        return 0

    from graders.paths import SOURCES, notebook_names

    names = args.notebooks or notebook_names()
    if args.page_from:
        run = run_from_dir(args.page_from, names, args.commit)
        args.out.write_text(page(run), encoding="utf-8")
        print(f"gpu_run: wrote {args.out} from {args.page_from}")
        return 0

    expected = [e for e in figures.expected_from_sources(SOURCES) if e.notebook in names]
    timed = {e.notebook for e in expected}
    jobs = args.jobs or 1
    previous = json.loads(args.estimates_from.read_text()) if args.estimates_from else None
    stages = plan.plan(stages_for(names, timed, args, jobs, plan.estimates(previous)), args.budget)
    if args.dry_run:
        print("\n".join(plan.plan_lines(stages, args.budget)))
        print(f"figures expected ({len(expected)}, from the RESULT lines in sources/*.py):")
        for e in expected:
            print(f"  {e.notebook}  {e.key}")
        return 0

    try:
        import torch
    except ImportError:
        print("gpu_run: torch is not installed; install the course's requirements first. Nothing was changed.")
        return 2
    if not torch.cuda.is_available():
        print(f"gpu_run: no CUDA GPU on this machine (torch {torch.__version__}, built for CUDA "
              f"{torch.version.cuda or 'none'}). This script measures the course on a real GPU; run it where "
              "`nvidia-smi` shows one. Nothing was changed.")
        return 2
    return run_all(args, names, expected, timed, stages, jobs)


def run_all(args, names, expected, timed, stages, jobs) -> int:
    from scripts.gpurun.machine import commit, machine

    args.work = args.work or Path(tempfile.mkdtemp(prefix="gpu-run-"))
    args.work.mkdir(parents=True, exist_ok=True)
    args.commit = args.commit or commit(REPO)
    run = Run(args, names, expected, stages)
    print("\n".join(plan.plan_lines(stages, args.budget)), flush=True)
    run.data["machine"] = info = machine()
    print(f"gpu_run: {info['gpu']} (capability {info['capability']}), driver {info['driver']}, torch {info['torch']}"
          f", torch outside sys.prefix: {info['torch_outside_prefix']}, bubblewrap: {info['bwrap']}", flush=True)
    for flag, name in ((args.skip_notebooks, "notebooks"), (args.skip_tests, "cuda_tests"),
                       (args.skip_grading, "grading")):
        if flag:
            run.status(name, f"not run (--skip-{name.replace('cuda_', '')})")
    run.save()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))  # a time limit's kill: as Ctrl-C
    try:
        if stage := run.stage("notebooks_alone"):
            run_notebooks(run, stage, [n for n in names if n in timed], 1)
        if stage := run.stage("direct"):
            run_direct(run, stage)
        if stage := run.stage("notebooks_parallel"):
            others = [] if args.skip_notebooks else [n for n in names if n not in timed]
            run_notebooks(run, stage, others, AT_ONCE, [] if args.skip_tests else [cuda_tests_job(args.work)])
        if stage := run.stage("grading"):
            run_grading(run, stage, jobs)
    finally:  # stopped from outside too: the page says so and keeps everything finished
        for s in stages:
            run.data["stages"].setdefault(s.name, {"status": "not finished: the run was stopped"})
        run.save()
    print(f"gpu_run: wrote {args.out} (raw figures in {args.work / 'gpu-results.json'}) after {run.elapsed():.0f} s")
    data = run.data
    ok = (all(s["status"] == "done" or s["status"].startswith("not run")
              for name, s in data["stages"].items() if name != "cuda_tests")
          and all(not nb["error"] for nb in data["notebooks"])
          and (data["tests"] is None or data["tests"]["returncode"] == 0)
          and (data["grading"] is None or all(t["verdict"] == "as expected" for t in data["grading"]["table"])))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
