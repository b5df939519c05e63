"""What earlier runs finished, so that a rerun grades only what is missing.

``DIR/graded_inputs.json`` keeps, for every (student, notebook) whose row is in ``DIR/grades.csv``, a fingerprint
of what that row was graded from: the hand-in's bytes, the course's source notebook (its tests, hidden ones
included) and the set-up that grades it (:func:`setup_digest`: the grader's code, the limits, the interpreter, the
sandbox, a GPU), so a changed hand-in, a changed test or a changed grader grades it again. What the fingerprint
cannot see (a package upgraded inside the venv, a changed dataset) is what ``--regrade`` is for.
A pair's fingerprint is removed before its new row is written and set after it (``run_record.RunRecord.add``): a
run stopped in between leaves a row without a fingerprint, which the next run grades again, and never a
fingerprint that vouches for a row it was not taken for.

A pair is kept (not graded again) only when its row is ``graded`` or ``review`` and its fingerprint is the same.
``failed`` rows are always graded again: a failure the hand-in causes (not valid JSON, missing, empty) costs no
kernel to find again, and one a kernel reports (died, time limit) may be the machine's (memory taken by the other
jobs, a loaded box) as well as the student's, and nothing tells the two apart; a retry costs at most the
notebook's time limit and loses nothing. ``--regrade`` grades everything it is given.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from graders.grading import graded_folder
from graders.paths import REPO

FILE = graded_folder.INPUTS
KEPT = ("graded", "review")  # finished rows; a failed one is retried (the module's docstring says why)


def key(student: str, notebook: str) -> str:
    return f"{student}/{notebook}"


def tests_digest(source: Path) -> str:
    """The sha256 of the course's source notebook (its tests, hidden ones included); "-" when there is none."""
    return hashlib.sha256(Path(source).read_bytes()).hexdigest() if Path(source).is_file() else "-"


def setup_digest(limits, sandboxed: bool) -> str:
    """The sha256 of what grades a hand-in besides its tests: the grader's and the course helpers' code, the
    limits (``Limits`` or None), the interpreter, whether the OS sandbox is on, whether an NVIDIA GPU is there."""
    digest = hashlib.sha256()
    for folder in (REPO / "graders", REPO / "gpucourse"):
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(json.dumps({"limits": limits.as_env() if limits is not None else None, "python": sys.executable,
                              "sandbox": sandboxed, "gpu": Path("/dev/nvidia0").exists()}, sort_keys=True).encode())
    return digest.hexdigest()


def fingerprint(hand_in_digest: str | None, tests: str, setup: str) -> str | None:
    """The hand-in's sha256 with the tests' (:func:`tests_digest`) and the set-up's (:func:`setup_digest`), as one
    sha256; None when no hand-in was read."""
    if hand_in_digest is None:
        return None
    return hashlib.sha256(f"{hand_in_digest}:{tests}:{setup}".encode()).hexdigest()


class Inputs:
    """``DIR/graded_inputs.json``: {"student/notebook": fingerprint} of the rows in ``DIR/grades.csv``."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / FILE
        self.data: dict[str, str] = graded_folder.read_json(self.path)

    def kept(self, row, fp: str | None) -> bool:
        """Whether ``row`` (the earlier row of a pair, or None) stands for the hand-in whose fingerprint is ``fp``."""
        return (row is not None and fp is not None and row.status in KEPT
                and self.data.get(key(row.student_id, row.notebook)) == fp)

    def set(self, student: str, notebook: str, fp: str | None) -> None:
        if fp is None:
            self.data.pop(key(student, notebook), None)
        else:
            self.data[key(student, notebook)] = fp

    def save(self) -> None:
        graded_folder.write_json(self.path, dict(sorted(self.data.items())))
