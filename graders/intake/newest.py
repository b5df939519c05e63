"""Which of several versions of one notebook from one person is filed: the newest, by the LMS's own time.

A version's time is the one the LMS records (``HandIn.submitted_at``: Blackboard's attempt stamp, Brightspace's
date, Gradescope's ``created_at``), else the file's own time where that is the LMS's only record (Moodle, folders),
else none (Canvas: every zip entry carries the download moment). Then the LMS's own order (Canvas: the higher
attachment id is the later upload), then the exact released name, then the name.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from graders.intake.files import Candidate
from graders.intake.lms import HandIn


@dataclass
class Version:
    cand: Candidate
    hand_in: HandIn
    when: float | None     # the submission time as the LMS records it, None when it records none

    def rank(self, name: str) -> tuple:
        return (round(self.when) if self.when is not None else float("-inf"), self.hand_in.order,
                self.cand.name == f"{name}.ipynb", self.cand.name)


def iso(epoch: float | None) -> str:
    if epoch is None:
        return ""
    return datetime.datetime.fromtimestamp(round(epoch), datetime.UTC).isoformat()


def choose(versions: list[Version], name: str) -> tuple[Version, str]:
    """The version to file and, when there were several, why it and not the others (in words)."""
    pick = max(versions, key=lambda v: v.rank(name))
    if len(versions) == 1:
        return pick, ""
    return pick, why(pick, versions, name)


def why(pick: Version, versions: list[Version], name: str) -> str:
    others = [v for v in versions if v is not pick]
    if pick.when is not None and all(v.when is not None and round(v.when) < round(pick.when) for v in others):
        if pick.hand_in.submission_id.startswith("attempt_"):
            return f"the newest attempt ({pick.hand_in.time_source}, {iso(pick.when)}); older attempts not filed"
        return f"the newest ({pick.hand_in.time_source or 'file time'}, {iso(pick.when)})"
    same = [v for v in versions if (v.when is None and pick.when is None) or
            (v.when is not None and pick.when is not None and round(v.when) == round(pick.when))]
    if pick.hand_in.order and all(v.hand_in.order < pick.hand_in.order for v in same if v is not pick):
        return f"the later upload ({pick.hand_in.lms} file id {pick.hand_in.submission_id} is the highest)"
    if pick.cand.name == f"{name}.ipynb" and sum(v.cand.name == f"{name}.ipynb" for v in same) == 1:
        return f"same time as the others; it has the released name {name}.ipynb"
    return "same time and no exact released name among them; the last name in alphabetical order"
