"""The time budget of one GPU run: each stage gets a deadline, so that the whole run ends within its limit.

A stage's estimate is what it took on the H200 run of 2026-12-04 (``gpu_run.log``, the run's README) where that
run timed it, else a guess marked as one, or what a later run took (``gpu_run.py --estimates-from JSON``).
Deadlines count from the run's start, and each stage may run until only the later stages' estimates are left of
the budget: a stage that runs late uses the spare time first (not the time the later stages need), a stage that
finishes early leaves its time to the next ones, a stage past its deadline is stopped (what it finished is kept),
and a stage that would start with less than ``MIN_STAGE_S`` left is skipped, "skipped: out of time".
"""

from __future__ import annotations

from dataclasses import dataclass

#: Seconds each solution notebook took in full mode on the H200, one after another (gpu_run.log, 2026-12-04), and
#: ``pytest -m cuda`` there (14 passed in 22 s: the run's README).
H200_S = {"01_devices": 17, "02_transfers": 42, "03_async_timing": 11, "04_autocast": 21, "05_gradscaler": 20,
          "06_bf16": 18, "07_compile": 36, "08_throughput": 43, "cuda_tests": 22}
#: What that run did not time, guessed: the direct measurements (bandwidth, matmuls, six MLP steps, two of them
#: compiled); grading the 24 sample rows (that run graded 21 in 130 s three at a time, one thread per student
#: without the sandbox, so about 19 s a row; 16 slots on 16 cores: two rounds at twice that, and a margin).
GUESSED_S = {"direct": 40, "grading": 120}
#: A notebook no run has timed.
NEW_NOTEBOOK_S = 60
#: How much longer a notebook or the tests take beside others (one GPU, kernels and pytest sharing the cores): a
#: guess, until a run's parallel stage is timed.
CONTENTION = 1.5
#: A stage with less than this left before its deadline is skipped rather than started.
MIN_STAGE_S = 10
#: Kept back from the run's limit for starting up and writing the page.
RESERVE_S = 20


@dataclass
class Stage:
    name: str
    what: str
    estimate_s: float
    budget_s: float = 0.0
    deadline_s: float = 0.0  # seconds from the run's start

    def left(self, elapsed_s: float) -> float:
        return self.deadline_s - elapsed_s


def estimates(previous: dict | None = None) -> dict[str, float]:
    """Seconds per notebook and per stage (``direct``, ``grading``, ``cuda_tests``): the H200's and the guesses,
    each replaced by what ``previous`` (a run's gpu-results.json) took where it finished that part."""
    known = {**H200_S, **GUESSED_S}
    if previous:
        known.update({nb["name"]: nb["seconds"] for nb in previous.get("notebooks", []) if not nb.get("error")})
        known.update({name: s["seconds"] for name, s in previous.get("stages", {}).items()
                      if name in GUESSED_S and s.get("status") == "done"})
        if (previous.get("tests") or {}).get("returncode") == 0:
            known["cuda_tests"] = previous["tests"]["seconds"]
    return known


def notebook_estimate(name: str, known: dict[str, float]) -> float:
    return known.get(name, NEW_NOTEBOOK_S)


def parallel_estimate(names: list[str], at_once: int, known: dict[str, float]) -> float:
    """Notebooks run ``at_once`` at a time: the longest, or their sum shared out, whichever is more, slowed by
    ``CONTENTION``."""
    if not names:
        return 0.0
    times = [notebook_estimate(n, known) for n in names]
    return max(max(times), sum(times) / at_once) * CONTENTION


def plan(stages: list[Stage], total_s: float, reserve_s: float = RESERVE_S) -> list[Stage]:
    """Give each stage its deadline within ``total_s`` (less ``reserve_s``): the latest that still leaves every
    later stage its estimate; when the estimates do not fit, each stage ends by the sum of the estimates so far,
    and those past the limit get no time (they run only if earlier ones finish early). ``budget_s``: the time
    from the previous deadline to the stage's own."""
    usable = max(total_s - reserve_s, 0.0)
    done, rest, previous = 0.0, sum(s.estimate_s for s in stages), 0.0
    for stage in stages:
        done += stage.estimate_s
        rest -= stage.estimate_s
        stage.deadline_s = min(usable, max(done, usable - rest))
        stage.budget_s = stage.deadline_s - previous
        previous = stage.deadline_s
    return stages


def plan_lines(stages: list[Stage], total_s: float) -> list[str]:
    """The plan as printed at the start of a run and on its page."""
    needed = sum(s.estimate_s for s in stages)
    head = (f"budget: {total_s:.0f} s in all; the stages' estimates add up to {needed:.0f} s"
            + ("" if needed <= total_s - RESERVE_S else " (MORE than the budget: the last stages may be skipped)"))
    lines = [head]
    for s in stages:
        lines.append(f"  {s.name:<18} estimate {s.estimate_s:4.0f} s, budget {s.budget_s:4.0f} s, "
                     f"ends by {s.deadline_s:4.0f} s: {s.what}")
    return lines
