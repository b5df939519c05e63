"""Every limit the grading run enforces, in one place (documented in the README).

Override any of them for one run with an environment variable of the same name, e.g.
``GRADER_NOTEBOOK_WALL_S=900 python -m graders autograde ...``.
"""

from __future__ import annotations

import os


def _env(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


#: Seconds one cell may run before nbgrader interrupts it (nbgrader's own default is 30).
CELL_TIMEOUT_S = int(_env("GRADER_CELL_TIMEOUT_S", 120))
#: Seconds one notebook's whole grading (kernel start, every cell, saving) may take.
NOTEBOOK_WALL_S = int(_env("GRADER_NOTEBOOK_WALL_S", 600))
#: Address space, in GiB, for the process that grades one notebook and the kernel it starts.
MEMORY_GIB = _env("GRADER_MEMORY_GIB", 8)
#: Lines of output kept per stream in the graded copy (nbgrader's LimitOutput).
MAX_OUTPUT_LINES = int(_env("GRADER_MAX_OUTPUT_LINES", 1000))
#: Largest submitted file accepted, in MiB.
MAX_FILE_MIB = _env("GRADER_MAX_FILE_MIB", 50)
