from pathlib import Path

from graders.commands.export import LMS_CHOICES

HELP = ("grade SUBMISSIONS on a Slurm cluster: an array task per shard (autograde --shard i/n), then a job "
        "that merges them into WORK/graded (gradebook, grades.csv, LMS export); --only-failed reruns the failed")


def add_arguments(p):
    p.add_argument("submissions", type=Path, nargs="?", default=None,
                   help="the student folders, on storage every node sees (a rerun reads it from WORK/plan.json)")
    p.add_argument("--work", type=Path, required=True, help="the work folder, on shared storage")
    p.add_argument("--shards", type=int, default=None, help="array tasks (default 4)")
    p.add_argument("--notebooks", nargs="*", default=None, help="grade only these notebooks")
    p.add_argument("--cpus-per-task", type=int, default=None, help="cpus of each task = its --jobs (default 1)")
    p.add_argument("--mem", default=None, help="memory per task, as sbatch --mem (about 1.2G per cpu); "
                                               "on a rerun, replaces the plan's (as do --time, --cpus-per-task, ...)")
    p.add_argument("--time", default=None, help="time limit per task, as sbatch --time")
    p.add_argument("--partition", default=None)
    p.add_argument("--max-running", type=int, default=None, help="at most this many tasks at once (--array=...%%M)")
    p.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   help="one more #SBATCH line for both scripts, e.g. --sbatch-arg=--account=cs101; repeatable")
    p.add_argument("--python", default=None, help="the Python with the graders' requirements, as the nodes see it "
                                                  "(default: this one)")
    p.add_argument("--setup", default=None, help="a shell line each job runs first, e.g. 'source scripts/setup.sh'")
    p.add_argument("--lms", choices=LMS_CHOICES, default=None,
                   help="default generic; an export that needs a roster (moodle) is best run by hand with --roster")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--only-failed", action="store_true", help="resubmit only the shards that did not end well")
    which.add_argument("--only", default=None, metavar="2,3", help="resubmit only these shards")
    which.add_argument("--status", action="store_true", help="submit nothing: report on WORK")
    p.add_argument("--dry-run", action="store_true", help="write the scripts and print the sbatch commands only")
    p.add_argument("--wait", action="store_true", help="wait for the jobs, then report")
    p.add_argument("--timeout", type=float, default=24 * 3600, help="seconds --wait waits (default 24 h)")


#: the plan's fields a rerun may change (the split, the students and notebooks it may not): its argument's name
RESOURCES = {"cpus_per_task": "cpus_per_task", "mem": "mem", "time": "time", "partition": "partition",
             "sbatch_args": "sbatch_arg", "python": "python", "setup": "setup", "lms": "lms"}


def _plan(args):
    """A new plan from the arguments, or WORK's own for a rerun (which must not change the split)."""
    from graders.grading.slurm import Plan
    work = args.work.resolve()
    saved = Plan.load(work) if (work / "plan.json").exists() else None
    if args.only_failed or args.only or args.status:
        if saved is None:
            raise ValueError(f"{work} holds no plan.json: submit the whole class first")
        return _rerun_plan(args, saved)
    if args.submissions is None:
        raise ValueError("SUBMISSIONS is needed to submit a class (a rerun: --only-failed or --only)")
    plan = Plan(submissions=str(args.submissions.resolve()), work=str(work), shards=args.shards or 4,
                notebooks=args.notebooks, cpus_per_task=args.cpus_per_task or 1, mem=args.mem, time=args.time,
                partition=args.partition, sbatch_args=args.sbatch_arg, setup=args.setup, lms=args.lms or "generic")
    if args.python:
        plan.python = args.python
    return plan


def _rerun_plan(args, saved):
    """WORK's plan, with the resources given now; an error if the split or the notebooks would change."""
    given_now = (("SUBMISSIONS", args.submissions and str(args.submissions.resolve()), saved.submissions),
                 ("--shards", args.shards, saved.shards), ("--notebooks", args.notebooks, saved.notebooks))
    for name, given, kept in given_now:
        if given is not None and given != kept:
            raise ValueError(f"{name} {given} differs from {kept} in {saved.work}/plan.json: "
                             "a rerun grades the same split; use a new --work for a new one")
    for field, arg in RESOURCES.items():  # e.g. more --mem for a shard Slurm ended with OUT_OF_MEMORY
        if getattr(args, arg) not in (None, []):
            setattr(saved, field, getattr(args, arg))
    return saved


def _tasks(args, plan, states) -> list[int]:
    from graders.grading.slurm import failed_shards
    if args.only_failed:
        return failed_shards(states)
    if args.only:
        tasks = sorted({int(t) for t in args.only.split(",")})
        if not all(1 <= t <= plan.shards for t in tasks):
            raise ValueError(f"--only {args.only}: shards are 1 to {plan.shards}")
        return tasks
    return list(range(1, plan.shards + 1))


def run(args) -> int:
    from graders.grading import slurm
    try:
        plan = _plan(args)
        Path(plan.work).mkdir(parents=True, exist_ok=True)
        history = [] if args.dry_run else slurm.jobs_history(plan)
        busy = slurm.queued([j for r in history for j in (r["array"], r["merge"])]) if history else set()
        states = slurm.shard_states(plan, busy) if (args.status or args.only_failed) else []
        if args.status:
            text, complete = slurm.report(plan, states)
            print(text)
            return 0 if complete else 1
        if busy:
            raise ValueError(f"jobs {', '.join(sorted(busy))} of {plan.work} are still queued: wait, or scancel them")
        tasks = _tasks(args, plan, states)
        if not tasks:
            print("submit-slurm: every shard ended well; nothing to rerun")
            return 0
        slurm.shard_students(plan)  # refuse an LMS download or an empty folder before submitting
        if args.dry_run:
            slurm.prepare(plan, [])
            array, merge = slurm.sbatch_commands(plan, tasks, args.max_running)
            print(" ".join(array))
            print(" ".join(merge[:2] + ["--dependency=afterany:<array job id>"] + merge[2:]))
            return 0
        record = slurm.submit(plan, tasks, args.max_running)
    except (ValueError, RuntimeError) as error:  # slurm's own failures too, not only a GraderError: kept here
        print(f"submit-slurm: {error}")
        return 2
    print(f"submitted shards {slurm.array_spec(tasks)} of {plan.shards} as array job {record['array']}; "
          f"merge job {record['merge']} runs after it; logs in {plan.path('logs')}")
    if not args.wait:
        print(f"then: python -m graders submit-slurm --work {plan.work} --status")
        return 0
    if not slurm.wait([record["array"], record["merge"]], args.timeout):
        print(f"submit-slurm: jobs still queued after {args.timeout:g} s; "
              f"`python -m graders submit-slurm --work {plan.work} --status` reports later")
        return 3
    text, complete = slurm.report(plan, slurm.shard_states(plan, set()))
    print(text)
    return 0 if complete else 1
