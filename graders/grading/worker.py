"""A long-lived nbgrader worker: one per warm slot (``graders.grading.warm``), instead of a new
``nbgrader autograde`` process, with its imports of nbgrader, SQLAlchemy and nbconvert, per notebook.

``python -m graders.grading.worker``: reads one JSON request per line on stdin
(``{"root", "name", "student", "log", "env"}``), runs nbgrader's own autograde (``NbGraderAPI.autograde``,
the converter ``nbgrader autograde`` runs) for it in the run's private course folder with the run's
environment (which the kernel inherits), appends nbgrader's log to ``log``, and answers one JSON line
(``{"code": 0}`` when nbgrader succeeded, else 1) on stdout. It runs one notebook at a time; the grader kills
it (and starts another) when a notebook runs past its time.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile


def grade(request: dict) -> int:
    from graders import course
    os.environ.clear()
    os.environ.update(request["env"])
    tempfile.tempdir = None  # the connection file goes to this run's TMPDIR
    os.chdir(request["root"])
    result = course.api(request["root"]).autograde(request["name"], request["student"], force=True, create=True)
    with open(request["log"], "a") as log:
        log.write(result.get("log", ""))
        if result.get("error"):
            log.write(result["error"])
    return 0 if result["success"] else 1


def main() -> None:
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # nothing nbgrader prints may reach the answer channel
    from nbgrader.apps import NbGraderAPI  # noqa: F401  (the import this worker exists to pay once)
    answers.write(json.dumps({"ready": True}) + "\n")
    answers.flush()
    for line in sys.stdin:
        request = json.loads(line)
        try:
            code = grade(request)
        except Exception as exc:  # the row says why; the worker grades the next one
            with open(request["log"], "a") as log:
                log.write(f"[AutogradeApp | ERROR] the grading worker failed: {exc!r}\n")
            code = 1
        answers.write(json.dumps({"code": code}) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
