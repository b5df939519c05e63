"""The result of one notebook of one student: a row of ``grades.csv``, and its test cells' rows of
``grades_detail.csv`` (each one's score and, where it lost points, the reason)."""

from __future__ import annotations

from dataclasses import dataclass, field

FIELDS = ["student_id", "notebook", "score", "max_score", "status", "message"]
DETAIL_FIELDS = ["student_id", "notebook", "grade_id", "score", "max_score", "reason"]


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
    #: grade_id -> why that test cell lost points (graders.grading.reasons, graders.grading.review); a cell that
    #: lost none has no entry
    reasons: dict = field(default_factory=dict)

    def csv(self) -> dict:
        data = {k: getattr(self, k) for k in FIELDS}
        # an empty score is a score withheld for review: imports read it as "no grade yet", not 0
        data["score"] = "" if self.score is None else f"{self.score:g}"
        data["max_score"] = f"{self.max_score:g}"
        return data

    def lost(self) -> dict[str, str]:
        """{grade_id: reason} for every test cell that lost points (all of them while the score is withheld)."""
        return {gid: self.reason(gid) for gid, (score, mx) in self.cells.items()
                if self.score is None or score < mx}

    def reason(self, grade_id: str) -> str:
        """Why ``grade_id`` lost points; "" when it lost none."""
        score, mx = self.cells[grade_id]
        if self.score is not None and score >= mx:
            return ""
        # a row from before reasons were recorded (an older grades_detail.csv) still says that points are missing
        return self.reasons.get(grade_id) or f"scored {score:g} of {mx:g}; no reason was recorded"

    def detail(self) -> list[dict]:
        """The row's lines of ``grades_detail.csv``."""
        # a withheld score is withheld cell by cell too
        return [{"student_id": self.student_id, "notebook": self.notebook, "grade_id": gid,
                 "score": "" if self.score is None else f"{score:g}", "max_score": f"{mx:g}",
                 "reason": self.reason(gid)} for gid, (score, mx) in self.cells.items()]
