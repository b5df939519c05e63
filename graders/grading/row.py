"""The result of one notebook of one student: a row of ``grades.csv``."""

from __future__ import annotations

from dataclasses import dataclass, field

FIELDS = ["student_id", "notebook", "score", "max_score", "status", "message"]


@dataclass
class Row:
    student_id: str
    notebook: str
    score: float | None  # None: withheld for review
    max_score: float
    status: str  # "graded", "review" (see graders.grading.review) or "failed"
    message: str = ""
    cells: dict = field(default_factory=dict)  # grade_id -> (score, max_score)
    review: object | None = None  # graders.grading.review.Review: what a flagged notebook's row is rebuilt from

    def csv(self) -> dict:
        data = {k: getattr(self, k) for k in FIELDS}
        # an empty score is a score withheld for review: imports read it as "no grade yet", not 0
        data["score"] = "" if self.score is None else f"{self.score:g}"
        data["max_score"] = f"{self.max_score:g}"
        return data
