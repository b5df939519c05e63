"""The time budget of one GPU run: each stage gets a deadline, so that the whole run ends within its limit.

A stage's estimate is what it took on the H200 run of 2026-12-04 (``gpu_run.log``, the run's README) where that
run timed it, else a guess marked as one. The time left after every estimate is shared out in proportion to
the estimates. Deadlines add up from the run's start: a stage that finishes early leaves its time to the next
ones, a stage that runs late is stopped at its deadline (what it finished is kept), and a stage that would
start with less than ``MIN_STAGE_S`` left is skipped, "skipped: out of time".
"""

from __future__ import annotations

from dataclasses import dataclass

#: Seconds each solution notebook took in full mode on the H200, one after another (gpu_run.log, 2026-12-04).
H200_NOTEBOOK_S = {"01_devices": 17, "02_transfers": 42, "03_async_timing": 11, "04_autocast": 21,
                   "05_gradscaler": 20, "06_bf16": 18, "07_compile": 36, "08_throughput": 43}
#: A notebook that run did not time.
NEW_NOTEBOOK_S = 60
#: ``pytest -m cuda`` there: 14 passed in 22 s (the run's README).
CUDA_TESTS_S = 22
#: The direct measurements were not timed by that run: a guess (bandwidth, matmuls, 6 compiled MLP steps).
DIRECT_S = 40
#: Grading 24 sample rows: that run graded 21 in 130 s three at a time (one thread per student, no sandbox,
#: a cold nbgrader per notebook), so about 19 s per row; 16 slots at once on 16 cores: a guess of 2 rounds at
#: twice that, and a margin.
GRADING_S = 120
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


def notebook_estimate(name: str) -> float:
    return H200_NOTEBOOK_S.get(name, NEW_NOTEBOOK_S)


def parallel_estimate(names: list[str], at_once: int) -> float:
    """Notebooks run ``at_once`` at a time: the longest, or their sum shared out, whichever is more."""
    if not names:
        return 0.0
    times = [notebook_estimate(n) for n in names]
    return max(max(times), sum(times) / at_once)


def plan(stages: list[Stage], total_s: float, reserve_s: float = RESERVE_S) -> list[Stage]:
    """Give each stage its budget and deadline within ``total_s``: the estimates, and the time left over shared
    in proportion to them; when the estimates do not fit, each stage keeps its estimate and the ones past the
    limit get no time (they run only if earlier ones finish early)."""
    usable = max(total_s - reserve_s, 0.0)
    needed = sum(s.estimate_s for s in stages)
    scale = usable / needed if needed and usable > needed else 1.0
    at = 0.0
    for stage in stages:
        stage.budget_s = min(stage.estimate_s * scale, max(usable - at, 0.0))
        at += stage.budget_s
        stage.deadline_s = at
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
