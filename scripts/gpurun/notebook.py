"""One solution notebook run top to bottom in full mode, in a process of its own (``gpu_run.py --execute-one``),
and what its executed copy says: the figures it printed, the device it ran on, how far it got.

The executed copy is written after every cell, so a notebook stopped at its stage's time limit keeps the
outputs of every cell it finished."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from scripts.gpurun import figures

#: What the notebook's environment loses or gets: full mode, and none of the grader's or CI's switches.
FULL_MODE = {"COURSE_QUICK": "0"}
DROPPED = ("NBGRADER_EXECUTION", "CI", "MPLBACKEND")


def environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    return {**env, **FULL_MODE}


def execute(path: Path, executed: Path, timeout: int) -> dict:
    """Run ``path`` into ``executed/<name>.ipynb`` (rewritten after each cell); its summary beside it, as json."""
    import tempfile

    import nbformat

    from graders.kernel_client import notebook_client

    nb = nbformat.read(str(path), as_version=4)
    executed.mkdir(parents=True, exist_ok=True)
    target = executed / path.name

    def save(**_):
        nbformat.write(nb, str(target))

    start = time.perf_counter()
    error = ""
    try:
        with tempfile.TemporaryDirectory(prefix=f"gpu-run-{path.stem}-") as work, \
                notebook_client(nb, work, timeout=timeout, kernel_name="python3", on_cell_executed=save) as client:
            client.execute()
    except Exception as exc:  # the notebook failed: keep what ran, report it
        error = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[-1][:300]}"
    save()
    summary = {"seconds": time.perf_counter() - start, "error": error}
    target.with_suffix(".json").write_text(json.dumps(summary))
    return summary


def record(name: str, executed: Path, outcome: str, seconds: float) -> dict:
    """The page's entry for a notebook: its time, its error (or how its stage stopped it), what it printed."""
    import nbformat

    target = executed / f"{name}.ipynb"
    summary_path = target.with_suffix(".json")
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    error = summary.get("error", "") if summary else "ended without a summary"
    if outcome != "finished":  # what the kernel said as it was stopped is not the reason
        error, summary = f"{outcome} after {seconds:.0f} s", {}
    text = figures.printed_text(nbformat.read(str(target), as_version=4)) if target.exists() else ""
    device = re.search(r"^Device: (\S+)", text, re.M)
    return {"name": name, "seconds": summary.get("seconds", seconds), "error": error,
            "figures": figures.figures(name, text), "device": device.group(1) if device else "?",
            "standin": "OFFLINE STAND-IN" in text}
