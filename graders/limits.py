"""Every limit the grading run enforces, in one frozen object (documented in docs/grading.md).

Override any of them for one run with an environment variable of the same name, e.g.
``GRADER_NOTEBOOK_WALL_S=900 python -m graders autograde ...``. :meth:`Limits.from_env` reads them once, where a
command starts; the object is passed down to the code that needs a value, so that nothing reads the environment
behind the caller's back and a test builds the limits it wants (``Limits(cell_timeout_s=5)``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field


def _limit(default, variable: str, meaning: str, fmt: str = "{}"):
    return field(default=default, metadata={"variable": variable, "meaning": meaning, "fmt": fmt})


@dataclass(frozen=True)
class Limits:
    #: Seconds one cell may run before nbgrader interrupts it (nbgrader's own default is 30).
    cell_timeout_s: int = _limit(120, "GRADER_CELL_TIMEOUT_S", "seconds one cell may run; then it is interrupted "
                                                               "(the test cells after it still run)")
    #: Seconds one notebook's whole grading (kernel start, every cell, saving) may take.
    notebook_wall_s: int = _limit(600, "GRADER_NOTEBOOK_WALL_S", "seconds for one notebook in all; then the "
                                                                 "notebook is failed")
    #: Private memory (RLIMIT_DATA), in GiB, for the process that grades one notebook and its kernel
    #: (the course's notebooks need well under 8 GiB).
    memory_gib: float = _limit(8.0, "GRADER_MEMORY_GIB", "GiB of private memory for nbgrader and its kernel", "{:g}")
    #: Lines of output kept per stream in the graded copy (nbgrader's LimitOutput).
    max_output_lines: int = _limit(1000, "GRADER_MAX_OUTPUT_LINES", "lines kept per output stream in the graded copy")
    #: Characters of output one cell may send before the rest is dropped inside the kernel
    #: (a million printed lines would otherwise fill the grader's memory before LimitOutput runs).
    max_output_chars: int = _limit(200_000, "GRADER_MAX_OUTPUT_CHARS", "characters one cell may print; the rest is "
                                                                       "dropped in the kernel")
    #: Largest submitted file accepted, in MiB (a notebook, or a zip before unpacking).
    max_file_mib: float = _limit(50.0, "GRADER_MAX_FILE_MIB", "MiB for one submitted file (notebook or zip)", "{:g}")
    #: Most bytes, in MiB, unpacked from one student's zip files, and most files taken from them.
    max_unzipped_mib: float = _limit(200.0, "GRADER_MAX_UNZIPPED_MIB", "MiB unpacked from one student's zip files",
                                     "{:g}")
    max_zip_files: int = _limit(500, "GRADER_MAX_ZIP_FILES", "files taken from one student's zip files")
    #: 1: a notebook whose code is flagged by the static scan still runs, so that its repaired score
    #: stands for review; 0: it is not run, and its score is withheld for review (faster).
    run_flagged: int = _limit(1, "GRADER_RUN_FLAGGED", "1: run a notebook flagged by the static scan, its "
                                                       "score kept for review; 0: not run, score withheld")
    #: 1: compare the helper package, the venv's start-up files and the submissions before and after
    #: each run, and withhold for review the score of a run during which they changed. Off by default:
    #: on a machine where people edit the repository while grading runs, every such edit would count.
    watch_files: int = _limit(0, "GRADER_WATCH_FILES", "1: withhold the score of a run during which the helper "
                                                       "package, the venv's start-up files or the submissions changed")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The limits with every ``GRADER_*`` variable set in ``environ`` (default: this process's) applied."""
        environ = os.environ if environ is None else environ
        values = {}
        for f in dataclasses.fields(cls):
            text = environ.get(f.metadata["variable"])
            if text:
                kind = float if isinstance(f.default, float) else int
                try:
                    values[f.name] = kind(float(text))
                except ValueError:
                    raise ValueError(f"{f.metadata['variable']}={text!r} is not a number") from None
        return cls(**values)

    def as_env(self) -> dict[str, str]:
        """The variables that give these limits to a child process (``nbgrader autograde``, a Slurm task)."""
        return {f.metadata["variable"]: str(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def describe(self) -> list[tuple[str, str, str]]:
        """``(variable, value, meaning)`` for every limit, for the docs and the autograde banner."""
        return [(f.metadata["variable"], f.metadata["fmt"].format(getattr(self, f.name)), f.metadata["meaning"])
                for f in dataclasses.fields(self)]

