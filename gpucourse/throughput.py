"""Notebook 08's measurements and what they mean: GPU utilization, and the sentence that reads each figure.

:func:`gpu_utilization` reads the share of time the GPU was busy; :class:`UtilizationSampler` averages it
over a block of code. The ``read_*`` functions are the sentence choosers: a cell that prints a figure which
depends on the machine (a speed-up, a utilization, a timing) prints with it the sentence these choose from
the figure itself, so that the lesson stays true on a T4, an H200 and a CPU alike; the notebook's fixed prose
never says what such a figure will be. (The simulated asynchronous GPU that notebooks 03, 07 and 08 time on a
CPU is :mod:`gpucourse.simdevice`.)
"""

from __future__ import annotations

import shutil
import subprocess
import threading

import torch


# -------------------------------------------------------------------------------------------------
# GPU utilization
# -------------------------------------------------------------------------------------------------
def _nvidia_smi_utilization(index: int = 0) -> float | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", f"-i={index}"],
                             capture_output=True, text=True, timeout=5, check=True).stdout
        return float(out.strip().splitlines()[0])
    except Exception:
        return None


def gpu_utilization(index: int = 0) -> float | None:
    """Percent of the last sample period in which GPU ``index`` ran a kernel, or None without a reading.

    Uses ``torch.cuda.utilization`` (needs the ``pynvml``/``nvidia-ml-py`` package), else ``nvidia-smi``.
    The figure is "was any kernel running", not "how much of the GPU was used": a tiny kernel that
    occupies one SM counts as busy. Low utilization still proves the GPU was waiting for the host.
    """
    if not torch.cuda.is_available():
        return None
    try:
        return float(torch.cuda.utilization(index))
    except Exception:  # pynvml missing, or a driver that does not report it
        return _nvidia_smi_utilization(index)


def utilization_source() -> str:
    """Where :func:`gpu_utilization` gets its numbers here, in words."""
    if not torch.cuda.is_available():
        return "no CUDA GPU: no utilization to read"
    try:
        torch.cuda.utilization(0)
        return "torch.cuda.utilization (NVML)"
    except Exception:
        return "nvidia-smi" if shutil.which("nvidia-smi") else "not available (no pynvml, no nvidia-smi)"


class UtilizationSampler:
    """Average GPU utilization while a block runs: ``with UtilizationSampler() as u: ...; u.mean``.

    Samples :func:`gpu_utilization` every ``interval_s`` in a background thread. ``mean`` is None when
    no reading was available (no GPU, no NVML and no nvidia-smi, or a block shorter than one sample).
    """

    def __init__(self, interval_s: float = 0.1, index: int = 0, reader=None):
        self.interval_s = interval_s
        self.index = index
        self.reader = reader or gpu_utilization
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            value = self.reader(self.index)
            if value is not None:
                self.samples.append(value)

    def __enter__(self) -> UtilizationSampler:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> bool:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return False

    @property
    def mean(self) -> float | None:
        return sum(self.samples) / len(self.samples) if self.samples else None


# -------------------------------------------------------------------------------------------------
# Sentence choosers: a measured figure in, the sentence that reads it out
# -------------------------------------------------------------------------------------------------
#: A ratio within this band of 1.0 is read as "no real difference": repeated runs of the same short
#: measurement on a busy machine move by about this much.
SAME_BAND = (0.95, 1.10)
#: From this speed-up on, a change "paid off" rather than "helped a little".
PAID_OFF = 1.5
#: The share of extra work that shows up as extra step time, below which a step is host-bound and above
#: which it is compute-bound (between the two: partly both).
HOST_BOUND_BELOW, COMPUTE_BOUND_ABOVE = 0.25, 0.6


def speedup_verdict(ratio: float) -> str:
    """How a speed-up reads, in a few words: "did not help" below 0.95x, "made no real difference" up to 1.1x,
    "helped a little" up to 1.5x, "paid off" from there."""
    if ratio < SAME_BAND[0]:
        return "did not help"
    if ratio < SAME_BAND[1]:
        return "made no real difference"
    if ratio < PAID_OFF:
        return "helped a little"
    return "paid off"


def read_speedup(change: str, ratio: float, baseline: str) -> str:
    """``change`` against ``baseline``, measured ``ratio`` times as fast: its verdict with the figure.

    >>> read_speedup("fused=True", 0.97, "AdamW's default")
    "fused=True made no real difference here: 0.97x AdamW's default."
    """
    verdict = speedup_verdict(ratio)
    slower = " (slower)" if ratio < SAME_BAND[0] else ""
    return f"{change} {verdict} here: {ratio:.2f}x {baseline}{slower}."


def bound_of(work_ratio: float, time_ratio: float) -> str:
    """"host", "compute" or "partly": what limits a step that did ``work_ratio`` times the work in
    ``time_ratio`` times the time. The share of the extra work that showed up as extra time,
    (time_ratio - 1) / (work_ratio - 1), is near 0 when a fixed cost per step (Python, dispatch, launches)
    dominates, and near 1 when the arithmetic does."""
    if work_ratio <= 1:
        raise ValueError(f"work_ratio must be above 1, not {work_ratio}")
    share = (time_ratio - 1) / (work_ratio - 1)
    if share < HOST_BOUND_BELOW:
        return "host"
    if share > COMPUTE_BOUND_ABOVE:
        return "compute"
    return "partly"


def read_bound(work_ratio: float, time_ratio: float) -> str:
    """The diagnosis from a step timed at two sizes: ``work_ratio`` times the work took ``time_ratio`` times the
    time per step."""
    measured = f"{work_ratio:.0f}x the work per step took {time_ratio:.2f}x the time"
    return {
        "host": f"host-bound here: {measured}, so most of the smaller step's time is a fixed cost (Python, "
                "PyTorch's dispatch, the kernel launches), not arithmetic.",
        "compute": f"compute-bound here: {measured}, so the arithmetic sets the pace.",
        "partly": f"partly host-bound here: {measured}; both the fixed cost per step and the arithmetic count.",
    }[bound_of(work_ratio, time_ratio)]


def read_mixed_precision(ratio: float, bound: str | None = None) -> str:
    """Mixed precision measured ``ratio`` times as fast as float32 on a step that is ``bound`` ("host",
    "compute", "partly" or None when not diagnosed): the verdict, the figure, and the reason that fits both."""
    head = read_speedup("Mixed precision", ratio, "float32")
    if ratio >= SAME_BAND[1]:
        why = ("the step spends its time in arithmetic, and this machine does 16-bit arithmetic faster (a GPU's "
               "tensor cores at several times float32's rate)." if bound in ("compute", "partly") else
               "the 16-bit arithmetic (and half the bytes to move) saved more than the casts cost.")
    elif bound == "host":
        why = ("this step is host-bound: most of its time goes to fixed costs per operation (Python, PyTorch's "
               "dispatch, the kernel launches), not to arithmetic, so faster arithmetic cannot shorten it, and "
               "autocast adds cast operations (a GradScaler also its checks and a synchronization) to every step.")
    elif bound is None:
        return f"{head} Why depends on what limits this step (notebook 08's section 4 measures it)."
    else:
        why = "the casts autocast inserts cost as much as the 16-bit arithmetic saved, or more."
    return f"{head} Why: {why}"


def read_utilization(percent: float | None) -> str:
    """A mean GPU utilization (percent of the time any kernel ran), or None without a reading, in words."""
    if percent is None:
        return "no reading here (no NVML and no nvidia-smi): nothing to diagnose from."
    if percent < 50:
        return (f"busy only {percent:.0f} % of the time: for the rest the GPU waited for the host "
                "(Python, the launches, synchronizations).")
    if percent < 85:
        return f"busy {percent:.0f} % of the time: it still waited for the host part of the time."
    return (f"busy {percent:.0f} % of the time: the host keeps it fed (which says a kernel was running, "
            "not how much of the GPU it used).")


def read_unsynced_timer(unsynced_ms: float, synced_ms: float) -> str:
    """A step timed without a synchronize at the end (``unsynced_ms``) against the same steps with one."""
    ratio = unsynced_ms / synced_ms
    read = f"without a synchronize the clock read {100 * ratio:.0f} % of the real time"
    if ratio < 0.5:
        return f"{read}: it stopped while the work was still queued on the GPU."
    if ratio < 0.9:
        return f"{read}: part of the work was still queued when it stopped."
    return (f"{read}, about right: the host did not get ahead of the GPU (the step waited for it, or the host "
            "itself set the pace).")


def read_accuracy(accuracy: float, target: float) -> str:
    """A test accuracy against the ``target`` the run was meant to reach."""
    reached = "reaches" if accuracy >= target else "is short of"
    return f"{100 * accuracy:.2f} % test accuracy: {reached} the {100 * target:.0f} % target."
