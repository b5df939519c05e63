"""Grade a course on a Slurm cluster: one array task per shard, then a dependent merge job.

Everything lives in one work folder on storage every node sees::

    WORK/plan.json               what was asked (submissions, shard count, notebooks, resources)
    WORK/jobs.json               every submission: array job id, its tasks, merge job id
    WORK/jobs/shard.sh, merge.sh the batch scripts, as submitted
    WORK/shards/<i>/             shard i's own results (``autograde --shard i/n --out``)
    WORK/seed/course/            the course generated once, copied to each new shard
    WORK/logs/shard-<i>.log      shard i's output; merge.log the merge job's
    WORK/status/shard-<i>.exit   shard i's exit code, written when it ends (absent: it never ended)
    WORK/graded/                 the merged course: gradebook, grades.csv, grades_lms.csv

A shard writes only its own folder, so a task that dies costs that shard's students only. The
merge job runs after every task, whatever their fate (``afterany``), and merges the shards that
exited 0; the LMS export is written only when every shard did, so a partial class is never
uploaded. Exit files, not ``sacct``, say how a task ended: a cluster need not run slurmdbd.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graders.paths import REPO

MARK = "graders-slurm:"  # prefix of the lines the scripts log about themselves (times, exit code)


@dataclass
class Plan:
    """What one grading run asks of the cluster; saved as ``WORK/plan.json`` for reruns."""

    submissions: str
    work: str
    shards: int
    notebooks: list[str] | None = None
    cpus_per_task: int = 1
    mem: str | None = None
    time: str | None = None
    partition: str | None = None
    sbatch_args: list[str] = field(default_factory=list)
    python: str = sys.executable
    setup: str | None = None
    lms: str = "generic"
    repo: str = str(REPO)

    def path(self, *parts: str) -> Path:
        return Path(self.work).joinpath(*parts)

    def save(self) -> None:
        self.path("plan.json").write_text(json.dumps(asdict(self), indent=1) + "\n")

    @classmethod
    def load(cls, work: Path) -> Plan:
        return cls(**json.loads((Path(work) / "plan.json").read_text()))


# --- the batch scripts -------------------------------------------------------------------------

def _q(value) -> str:
    return shlex.quote(str(value))


def _header(plan: Plan, name: str, log: str, cpus: int) -> list[str]:
    lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f"#SBATCH --output={log}",
             f"#SBATCH --chdir={plan.repo}", f"#SBATCH --cpus-per-task={cpus}"]
    for option, value in (("mem", plan.mem), ("time", plan.time), ("partition", plan.partition)):
        if value:
            lines.append(f"#SBATCH --{option}={value}")
    lines += [f"#SBATCH {arg}" for arg in plan.sbatch_args]
    return lines + ([plan.setup] if plan.setup else [])


def _notebook_args(plan: Plan) -> str:
    return (" --notebooks " + " ".join(_q(n) for n in plan.notebooks)) if plan.notebooks else ""


def shard_script(plan: Plan) -> str:
    """Array task ``i`` grades shard ``i/n`` into ``WORK/shards/i`` and leaves its exit code."""
    status = _q(plan.path("status"))
    lines = _header(plan, "grade-shards", str(plan.path("logs", "shard-%a.log")), plan.cpus_per_task) + [
        "i=$SLURM_ARRAY_TASK_ID",
        f"rm -f {status}/shard-$i.exit",
        # os.cpu_count() sees the whole node, not this task's cpus: one thread per kernel,
        # one kernel per allocated cpu (--jobs), as graders.grading.cores does on a machine of our own
        "export OMP_NUM_THREADS=1",
        f'echo "{MARK} start $(date +%s.%N) shard $i/{plan.shards} on $(hostname)"',
        f"{_q(plan.python)} -m graders autograde {_q(plan.submissions)} --out {_q(plan.path('shards'))}/$i "
        f"--shard $i/{plan.shards} --jobs ${{SLURM_CPUS_PER_TASK:-1}} --quiet{_notebook_args(plan)}",
        "rc=$?",
        f'echo "{MARK} end $(date +%s.%N) exit $rc"',
        # written last and renamed into place: present means the task ran to its end
        f"echo $rc > {status}/shard-$i.exit.tmp && mv {status}/shard-$i.exit.tmp {status}/shard-$i.exit",
        "exit $rc",
    ]
    return "\n".join(lines) + "\n"


def merge_script(plan: Plan) -> str:
    """Merge the shards that exited 0 into ``WORK/graded``; export for the LMS only if all did."""
    status, graded, py = _q(plan.path("status")), _q(plan.path("graded")), _q(plan.python)
    lines = _header(plan, "grade-merge", str(plan.path("logs", "merge.log")), 1) + [
        f'echo "{MARK} start $(date +%s.%N) merge"',
        "ok=(); nums=()",
        f"for i in $(seq 1 {plan.shards}); do",
        f'  if [ "$(cat {status}/shard-$i.exit 2>/dev/null)" = 0 ]; then',
        f"    ok+=({_q(plan.path('shards'))}/$i); nums+=($i)",
        "  fi",
        "done",
        "rc=0",
        f"rm -f {graded}/grades_lms.csv",
        'if [ ${#ok[@]} -gt 0 ]; then',
        f'  {py} -m graders merge "${{ok[@]}}" --out {graded}{_notebook_args(plan)} || rc=$?',
        "fi",
        f'if [ $rc = 0 ] && [ ${{#ok[@]}} = {plan.shards} ]; then',
        f"  {py} -m graders export {graded} --lms {_q(plan.lms)} --out {graded}/grades_lms.csv || rc=$?",
        "fi",
        f'echo "${{nums[*]}}" > {status}/merged.txt',
        f'echo "{MARK} end $(date +%s.%N) exit $rc"',
        f"echo $rc > {status}/merge.exit.tmp && mv {status}/merge.exit.tmp {status}/merge.exit",
        "exit $rc",
    ]
    return "\n".join(lines) + "\n"


def array_spec(tasks: list[int], max_running: int | None = None) -> str:
    """``[1, 2, 3, 5]`` -> ``1-3,5`` (``%M``: at most M tasks at once)."""
    ranges, tasks = [], sorted(set(tasks))
    start = prev = tasks[0]
    for t in tasks[1:] + [None]:
        if t is not None and t == prev + 1:
            prev = t
            continue
        ranges.append(f"{start}" if start == prev else f"{start}-{prev}")
        if t is not None:
            start = prev = t
    return ",".join(ranges) + (f"%{max_running}" if max_running else "")


def sbatch_commands(plan: Plan, tasks: list[int], max_running: int | None = None) -> tuple[list[str], list[str]]:
    """The array's sbatch command, and the merge job's without its ``--dependency`` (known later)."""
    array = ["sbatch", "--parsable", f"--array={array_spec(tasks, max_running)}", str(plan.path("jobs", "shard.sh"))]
    return array, ["sbatch", "--parsable", str(plan.path("jobs", "merge.sh"))]


# --- submitting --------------------------------------------------------------------------------

def prepare(plan: Plan, tasks: list[int]) -> None:
    """Folders and scripts in place; the exit files of the tasks about to run (and the merge's) gone."""
    for sub in ("jobs", "logs", "status", "shards"):
        plan.path(sub).mkdir(parents=True, exist_ok=True)
    plan.save()
    plan.path("jobs", "shard.sh").write_text(shard_script(plan))
    plan.path("jobs", "merge.sh").write_text(merge_script(plan))
    for i in tasks:
        plan.path("status", f"shard-{i}.exit").unlink(missing_ok=True)
    for name in ("merge.exit", "merged.txt"):
        plan.path("status", name).unlink(missing_ok=True)
    seed_courses(plan, tasks)


def seed_courses(plan: Plan, tasks: list[int]) -> None:
    """Generate the course once here and copy it to every shard that has none yet.

    Otherwise every task runs ``nbgrader generate_assignment`` for itself (measured: 7.5 s of an
    empty shard's 30 s here). ``course.ensure`` in the task then finds the assignments generated and
    keeps them. Only an optimisation: a shard it cannot seed generates its own course.
    """
    from graders import course
    todo = [plan.path("shards", str(i), "course") for i in tasks]
    todo = [d for d in todo if not d.exists() and not d.parent.is_file()]
    if not todo:
        return
    seed = plan.path("seed", "course")
    course.ensure(seed, plan.notebooks)  # keeps a seed already made, regenerates a stale one
    for dest in todo:
        try:
            shutil.copytree(seed, dest)
        except OSError:
            shutil.rmtree(dest, ignore_errors=True)


def _sbatch(command: list[str]) -> str:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip() or result.stdout.strip()}")
    return result.stdout.strip().split(";")[0]  # --parsable: "id" or "id;cluster"


def submit(plan: Plan, tasks: list[int], max_running: int | None = None) -> dict:
    """Submit the array for ``tasks`` and the merge job after it; record and return the job ids."""
    prepare(plan, tasks)
    array, merge = sbatch_commands(plan, tasks, max_running)
    array_id = _sbatch(array)
    merge_id = _sbatch(merge[:2] + [f"--dependency=afterany:{array_id}"] + merge[2:])
    record = {"array": array_id, "tasks": sorted(tasks), "merge": merge_id, "submitted": time.time()}
    history = jobs_history(plan)
    plan.path("jobs.json").write_text(json.dumps(history + [record], indent=1) + "\n")
    return record


def jobs_history(plan: Plan) -> list[dict]:
    path = plan.path("jobs.json")
    return json.loads(path.read_text()) if path.exists() else []


# --- waiting and reporting ---------------------------------------------------------------------

def queued(job_ids: list[str]) -> set[str]:
    """Which of these jobs (array job ids included) are still pending or running."""
    result = subprocess.run(["squeue", "-h", "--me", "-o", "%F %A"], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"squeue failed: {result.stderr.strip()}")
    present = set(result.stdout.split())  # "%F %A": array job id and job id of every entry
    return {j for j in job_ids if j in present}


def wait(job_ids: list[str], timeout: float) -> bool:
    """True once none of the jobs is in the queue; False if ``timeout`` seconds pass first.

    Asks every 2 s at first, then less often (at most every 30 s) to spare a busy controller.
    """
    start = time.monotonic()
    while queued(job_ids):
        elapsed = time.monotonic() - start
        if elapsed > timeout:
            return False
        time.sleep(min(30.0, 2.0 + elapsed / 60))
    return True


def slurm_state(job: str) -> str | None:
    """``COMPLETED``, ``FAILED``, ``TIMEOUT``, ``OUT_OF_MEMORY``, ... while Slurm still remembers the job."""
    try:
        result = subprocess.run(["scontrol", "-o", "show", "job", job], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None  # no scontrol here, or no controller: the exit files still tell
    for word in result.stdout.split():
        if word.startswith("JobState="):
            return word.split("=", 1)[1]
    return None


@dataclass
class ShardState:
    index: int
    count: int
    state: str  # ok, failed (exited non-zero), killed (never wrote its exit file), queued, never run
    exit_code: int | None
    students: list[str]
    log: Path
    slurm: str | None = None

    def line(self) -> str:
        what = {"failed": f"FAILED (exit {self.exit_code})", "killed": "KILLED (it never wrote its exit code)",
                "queued": "still queued or running", "never run": "never submitted"}.get(self.state, "ok")
        if self.slurm and self.state != "ok":
            what += f", Slurm: {self.slurm}"
        who = ", ".join(self.students) if self.students else "no students"
        return f"shard {self.index}/{self.count} {what}: {len(self.students)} student(s): {who}; log {self.log}"


def shard_students(plan: Plan) -> dict[int, list[str]]:
    from graders.grading.autograde import in_shard, students_in
    names = [f.name for f in students_in(Path(plan.submissions))]
    return {i: [s for s in names if in_shard(s, (i, plan.shards))] for i in range(1, plan.shards + 1)}


def _exit_code(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def shard_states(plan: Plan, still_queued: set[str] | None = None) -> list[ShardState]:
    """How every shard ended, from its exit file, the queue, and Slurm's memory of the task."""
    history = jobs_history(plan)
    last = {}  # shard -> array job id of the last submission that ran it
    for record in history:
        for i in record["tasks"]:
            last[i] = record["array"]
    if still_queued is None:
        still_queued = queued(list(set(last.values()))) if last else set()
    states = []
    for i, students in shard_students(plan).items():
        code = _exit_code(plan.path("status", f"shard-{i}.exit"))
        if code == 0:
            state = "ok"
        elif code is not None:
            state = "failed"
        elif i not in last:
            state = "never run"
        elif last[i] in still_queued:
            state = "queued"
        else:
            state = "killed"
        slurm = slurm_state(f"{last[i]}_{i}") if state in ("failed", "killed") else None
        states.append(ShardState(i, plan.shards, state, code, students, plan.path("logs", f"shard-{i}.log"), slurm))
    return states


def failed_shards(states: list[ShardState]) -> list[int]:
    return [s.index for s in states if s.state in ("failed", "killed", "never run")]


def report(plan: Plan, states: list[ShardState]) -> tuple[str, bool]:
    """The text for the instructor, and whether the merged result is complete."""
    lines = [s.line() for s in states if s.state != "ok"]
    good = [s.index for s in states if s.state == "ok"]
    merged = plan.path("status", "merged.txt")
    merge_code = _exit_code(plan.path("status", "merge.exit"))
    merged_shards = [int(w) for w in merged.read_text().split()] if merged.exists() else []
    complete = len(good) == plan.shards and merge_code == 0 and len(merged_shards) == plan.shards
    lines.append(f"{len(good)} of {plan.shards} shards graded; "
                 f"{sum(len(s.students) for s in states if s.state == 'ok')} of "
                 f"{sum(len(s.students) for s in states)} students")
    if merge_code is None:
        lines.append(f"merge: has not run (log {plan.path('logs', 'merge.log')})")
    elif merge_code != 0:
        lines.append(f"merge: FAILED (exit {merge_code}); log {plan.path('logs', 'merge.log')}")
    else:
        lines.append(f"merge: shards {' '.join(map(str, merged_shards)) or 'none'} into {plan.path('graded')}"
                     + (f"; LMS export {plan.path('graded', 'grades_lms.csv')}" if complete else
                        "; no LMS export until every shard is graded"))
    bad = failed_shards(states)
    if bad:
        lines.append(f"rerun the failed shards only: python -m graders submit-slurm --work {plan.work} --only-failed")
    return "\n".join(lines), complete


def shard_times(plan: Plan) -> dict[str, tuple[float, float]]:
    """``{"1": (start, end), ..., "merge": (start, end)}`` in epoch seconds, from the logs."""
    times = {}
    for log in sorted(plan.path("logs").glob("*.log")):
        marks = {}
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(MARK):
                word, stamp = line.split()[1:3]
                marks[word] = float(stamp)
        if "start" in marks and "end" in marks:
            key = log.stem.replace("shard-", "")
            times[key] = (marks["start"], marks["end"])
    return times
