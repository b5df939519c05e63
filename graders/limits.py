"""Every limit the grading run enforces, in one place (documented in docs/grading.md).

Override any of them for one run with an environment variable of the same name, e.g.
``GRADER_NOTEBOOK_WALL_S=900 python -m graders autograde ...``. The values are read when this
module is imported; :func:`reload` reads the environment again (the tests use it), and the
grading code always reads ``limits.NAME`` at the moment it needs the value.
"""

from __future__ import annotations

import os


def _env(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


def reload() -> None:
    """Read every limit from the environment again (defaults where a variable is unset)."""
    global CELL_TIMEOUT_S, NOTEBOOK_WALL_S, MEMORY_GIB, MAX_OUTPUT_LINES, MAX_OUTPUT_CHARS
    global MAX_FILE_MIB, MAX_UNZIPPED_MIB, MAX_ZIP_FILES, RUN_FLAGGED, WATCH_FILES
    #: Seconds one cell may run before nbgrader interrupts it (nbgrader's own default is 30).
    CELL_TIMEOUT_S = int(_env("GRADER_CELL_TIMEOUT_S", 120))
    #: Seconds one notebook's whole grading (kernel start, every cell, saving) may take.
    NOTEBOOK_WALL_S = int(_env("GRADER_NOTEBOOK_WALL_S", 600))
    #: Private memory (RLIMIT_DATA), in GiB, for the process that grades one notebook and its kernel
    #: (see graders.grading.pipeline; the course's notebooks need well under 8 GiB).
    MEMORY_GIB = _env("GRADER_MEMORY_GIB", 8)
    #: Lines of output kept per stream in the graded copy (nbgrader's LimitOutput).
    MAX_OUTPUT_LINES = int(_env("GRADER_MAX_OUTPUT_LINES", 1000))
    #: Characters of output one cell may send before the rest is dropped inside the kernel
    #: (a million printed lines would otherwise fill the grader's memory before LimitOutput runs).
    MAX_OUTPUT_CHARS = int(_env("GRADER_MAX_OUTPUT_CHARS", 200_000))
    #: Largest submitted file accepted, in MiB (a notebook, or a zip before unpacking).
    MAX_FILE_MIB = _env("GRADER_MAX_FILE_MIB", 50)
    #: Most bytes, in MiB, unpacked from one student's zip files, and most files taken from them.
    MAX_UNZIPPED_MIB = _env("GRADER_MAX_UNZIPPED_MIB", 200)
    MAX_ZIP_FILES = int(_env("GRADER_MAX_ZIP_FILES", 500))
    #: 1: a notebook whose code is flagged by the static scan still runs, so that its repaired score
    #: stands for review; 0: it is not run, and its score is withheld for review (faster).
    RUN_FLAGGED = int(_env("GRADER_RUN_FLAGGED", 1))
    #: 1: compare the helper package, the venv's start-up files and the submissions before and after
    #: each run, and withhold for review the score of a run during which they changed. Off by default:
    #: on a machine where people edit the repository while grading runs, every such edit would count.
    WATCH_FILES = int(_env("GRADER_WATCH_FILES", 0))


CELL_TIMEOUT_S: int
NOTEBOOK_WALL_S: int
MEMORY_GIB: float
MAX_OUTPUT_LINES: int
MAX_OUTPUT_CHARS: int
MAX_FILE_MIB: float
MAX_UNZIPPED_MIB: float
MAX_ZIP_FILES: int
RUN_FLAGGED: int
WATCH_FILES: int
reload()


def describe() -> list[tuple[str, str, str]]:
    """``(variable, value, meaning)`` for every limit, for the docs and the autograde banner."""
    return [
        ("GRADER_CELL_TIMEOUT_S", f"{CELL_TIMEOUT_S}", "seconds one cell may run; then it is interrupted "
                                                       "(the test cells after it still run)"),
        ("GRADER_NOTEBOOK_WALL_S", f"{NOTEBOOK_WALL_S}", "seconds for one notebook in all; then the "
                                                         "notebook is failed"),
        ("GRADER_MEMORY_GIB", f"{MEMORY_GIB:g}", "GiB of private memory for nbgrader and its kernel"),
        ("GRADER_MAX_OUTPUT_LINES", f"{MAX_OUTPUT_LINES}", "lines kept per output stream in the graded copy"),
        ("GRADER_MAX_OUTPUT_CHARS", f"{MAX_OUTPUT_CHARS}", "characters one cell may print; the rest is "
                                                           "dropped in the kernel"),
        ("GRADER_MAX_FILE_MIB", f"{MAX_FILE_MIB:g}", "MiB for one submitted file (notebook or zip)"),
        ("GRADER_MAX_UNZIPPED_MIB", f"{MAX_UNZIPPED_MIB:g}", "MiB unpacked from one student's zip files"),
        ("GRADER_MAX_ZIP_FILES", f"{MAX_ZIP_FILES}", "files taken from one student's zip files"),
        ("GRADER_RUN_FLAGGED", f"{RUN_FLAGGED}", "1: run a notebook flagged by the static scan, its "
                                                 "score kept for review; 0: not run, score withheld"),
        ("GRADER_WATCH_FILES", f"{WATCH_FILES}", "1: withhold the score of a run during which the helper package, "
                                                 "the venv's start-up files or the submissions changed"),
    ]
