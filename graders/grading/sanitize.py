"""Step 1, sanitize: the submission repaired against the released notebook, and read (never run) for tampering."""

from __future__ import annotations

import copy

from graders.grading import review as review_mod
from graders.grading import scan as scan_mod
from graders.grading.guard_cells import source_hash
from graders.grading.job import Job
from graders.grading.row import Row
from graders.intake.repair import repair as repair_cells


def repair(job: Job) -> None:
    """Cells matched back to the released ones (``graders.intake.repair``); what was repaired goes in the message."""
    job.nb = copy.deepcopy(job.item.nb)
    job.notes = list(job.item.notes) + repair_cells(job.nb, job.release)


def scan(job: Job):
    """The static scan's findings (evidence for a review); with ``GRADER_RUN_FLAGGED=0`` a flagged
    notebook is not run at all, and its row says so with the score withheld."""
    trusted = {source_hash(s) for s in job.trusted_sources()}
    job.findings = [str(f) for f in scan_mod.static_scan(job.nb, trusted, job.test_sources())]
    job.log_path.parent.mkdir(parents=True, exist_ok=True)
    job.log_path.write_text("")
    if job.findings and not job.limits.run_flagged:
        job.log_path.write_text("=== findings (static scan; not run)\n" + "\n".join(job.findings) + "\n")
        review = review_mod.Review(review_mod.digest(job.item.nb), withheld=True, evidence=job.findings + [
            "not run (GRADER_RUN_FLAGGED=0): grade it again with GRADER_RUN_FLAGGED=1 for nbgrader's score"],
            notes=job.notes, cells={gid: (0.0, pts) for gid, pts in job.points.items()}, ran=False)
        return review_mod.apply(Row(job.student, job.name, None, job.max_score, "review"), review, [])
    return None
