"""Facts about the machine a GPU run ran on: the GPU, driver and versions, and the Python layout that decides
how the grader sees library code (is torch inside ``sys.prefix``, or reached from another prefix as a venv made
with ``--system-site-packages`` does?) and whether the grading sandbox (bubblewrap) is there."""

from __future__ import annotations

import datetime as dt
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path


def nvidia_smi(query: str) -> str:
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (no nvidia-smi)"


def python_layout() -> dict:
    """Where the grading Python and its torch live, and whether bubblewrap is on PATH."""
    import torch

    torch_dir = Path(torch.__file__).resolve().parent
    return {"executable": sys.executable, "venv": sys.prefix != sys.base_prefix, "torch_path": str(torch_dir),
            "torch_outside_prefix": not torch_dir.is_relative_to(Path(sys.prefix).resolve()),
            "bwrap": shutil.which("bwrap") or "not installed"}


def commit(repo: Path) -> str | None:
    """The commit checked out in ``repo`` (marked when the tree has changes), or None without git."""
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=30)
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + (" with uncommitted changes" if dirty.stdout.strip() else "")


def machine() -> dict:
    import torch

    props = torch.cuda.get_device_properties(0)
    major, minor = torch.cuda.get_device_capability(0)
    return {
        "gpu": props.name, "capability": f"{major}.{minor}", "gpu_memory_gib": round(props.total_memory / 2**30, 1),
        "gpus": torch.cuda.device_count(), "driver": nvidia_smi("driver_version"),
        "pcie": nvidia_smi("pcie.link.gen.current,pcie.link.width.current"),
        "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
        "python": platform.python_version(), "cpus": os.cpu_count(), "host": platform.platform(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), **python_layout(),
    }
