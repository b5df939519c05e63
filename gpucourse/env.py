"""Where are we running? Quick mode, Colab detection and the environment report."""

from __future__ import annotations

import os
import platform
import sys

import torch

#: Environment variables that switch the long demonstrations to their quick configuration.
#: nbgrader sets NBGRADER_EXECUTION ("autograde" or "validate") while it runs a notebook.
QUICK_ENV = "COURSE_QUICK"


def quick_mode() -> bool:
    """True when long demonstrations should shrink: under nbgrader, in CI, or when asked.

    ``COURSE_QUICK=0`` forces the full version, ``COURSE_QUICK=1`` the quick one; otherwise
    the quick version is used under nbgrader (``NBGRADER_EXECUTION``) and in CI (``CI``).
    """
    forced = os.environ.get(QUICK_ENV)
    if forced is not None and forced.strip() != "":
        return forced.strip().lower() not in ("0", "false", "no", "off")
    return bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("CI"))


def in_colab() -> bool:
    """True inside a Google Colab runtime."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def best_device() -> torch.device:
    """The fastest device this runtime offers: cuda, then Apple's mps, then cpu."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def gpu_summary() -> dict | None:
    """Name, compute capability and memory of GPU 0, or None without CUDA."""
    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(0)
    return {
        "name": props.name,
        "capability": torch.cuda.get_device_capability(0),
        "memory_gib": props.total_memory / 2**30,
    }


def environment_lines() -> list[str]:
    """The environment report as lines of text (see :func:`environment_report`)."""
    device = best_device()
    lines = [
        f"Python {platform.python_version()}, torch {torch.__version__}",
        f"Device: {device}",
    ]
    gpu = gpu_summary()
    if gpu is not None:
        major, minor = gpu["capability"]
        lines.append(
            f"GPU: {gpu['name']}, compute capability {major}.{minor}, {gpu['memory_gib']:.1f} GiB"
        )
    else:
        lines.append(
            "No CUDA GPU here. Everything still runs: GPU-only behaviour (asynchronous "
            "execution, CUDA events, pinned memory) is simulated on the CPU and labelled so."
        )
        if in_colab():
            lines.append(
                "On Colab: Runtime > Change runtime type > T4 GPU, then run this cell again."
            )
    mode = "quick (short demonstrations)" if quick_mode() else "full"
    lines.append(f"Mode: {mode}")
    return lines


def environment_report() -> torch.device:
    """Print the environment report and return the best device."""
    print("\n".join(environment_lines()))
    return best_device()
