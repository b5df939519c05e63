"""The errors a command reports to its user: one tree, caught once in ``graders.__main__``.

A ``GraderError`` is the user's to fix (a wrong path, a download no LMS makes, a roster without the column the
import needs): ``__main__`` prints ``<command>: <message>`` and exits with ``exit_code``, no traceback. Anything
else is a bug in the grader and keeps its traceback.
"""

from __future__ import annotations


class GraderError(Exception):
    """Something the user gave that the command cannot use; the message says what and what to do."""

    exit_code = 2


class InputError(GraderError, ValueError):
    """A path, file or argument that is not what the command needs (nothing was written)."""


class RefusedError(GraderError):
    """The command would write something wrong, so it wrote nothing (e.g. an export the LMS would reject)."""

    exit_code = 1
