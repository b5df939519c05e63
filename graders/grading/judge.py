"""Step 5, judge: the row, and where anything was found, the review it waits for (``graders.grading.review``):
the repaired score kept, the tampered-with tests at 0, or the score withheld where nothing repairs it."""

from __future__ import annotations

from pathlib import Path

from graders.grading import review as review_mod
from graders.grading.job import Job
from graders.grading.row import Row


def judge(job: Job, run: Path) -> None:
    total = sum(s for s, _ in job.cells.values())
    row = Row(job.student, job.name, total, job.max_score, "graded", "; ".join(job.notes + job.extra),
              cells=job.cells)
    if not job.evidence:
        job.row = row
        return
    job.log_findings()
    review = review_mod.Review(review_mod.digest(job.item.nb), withheld=bool(job.broken), evidence=job.evidence,
                               notes=job.notes + job.extra, cells=job.cells, untrusted=job.untrusted)
    job.row = review_mod.apply(row, review, [])  # pending; graders.grading.autograde applies the decisions
