"""Step 5, verdict: the row, and where anything was found, the review it waits for (``graders.grading.review``):
the repaired score kept, the tampered-with tests at 0, or the score withheld where nothing repairs it."""

from __future__ import annotations

from graders.grading import review as review_mod
from graders.grading.job import Attempt, Job
from graders.grading.row import Row


def verdict(job: Job, attempt: Attempt) -> None:
    total = sum(s for s, _ in attempt.cells.values())
    row = Row(job.student, job.name, total, job.max_score, "graded", "; ".join(job.notes + attempt.extra),
              cells=attempt.cells, reasons=attempt.reasons)
    if not job.evidence:
        attempt.row = row
        return
    job.log_findings()
    review = review_mod.Review(review_mod.digest(job.item.nb), withheld=bool(attempt.broken),
                               evidence=job.evidence, notes=job.notes + attempt.extra, cells=attempt.cells,
                               untrusted=attempt.untrusted, reasons=attempt.reasons, taken=attempt.taken,
                               broken=attempt.broken)
    attempt.row = review_mod.apply(row, review, [])  # pending; graders.grading.autograde applies the decisions
