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
from collections.abc import Sequence

import torch

from gpucourse.readings import NOISE_FLOOR, Ratio


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
    occupies one SM counts as busy. Nor does it count copies between host and GPU (the copy engines run them,
    not kernels), so a low figure means "no kernel ran", which is the GPU waiting for the host only where no
    copy or other process can explain it.
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
# "Faster", "slower" and "no real difference" follow the course's one noise band, gpucourse.readings.Ratio: a ratio
# (one figure, or one per round) counts as a change only when it is further from 1 than its own rounds are from each
# other, as factors, and never within 10 % of 1.
#: From this speed-up on, a change "paid off" rather than "helped a little".
PAID_OFF = 1.5
#: The share of extra work that shows up as extra step time, below which a step is host-bound and above
#: which it is compute-bound (between the two: partly both).
HOST_BOUND_BELOW, COMPUTE_BOUND_ABOVE = 0.25, 0.6


def speedup_verdict(ratio: float | Sequence[float] | Ratio) -> str:
    """How a speed-up reads, in a few words: "did not help" below its noise band, "made no real difference" within
    it, "gave no clear result" within it only because its rounds disagree, "helped a little" above it up to 1.5x,
    "paid off" from there."""
    r = Ratio.of(ratio)
    if r.below:
        return "did not help"
    if r.unsettled:
        return "gave no clear result"
    if not r.above:
        return "made no real difference"
    if r.value < PAID_OFF:
        return "helped a little"
    return "paid off"


def read_speedup(change: str, ratio: float | Sequence[float] | Ratio, baseline: str) -> str:
    """``change`` against ``baseline``, measured ``ratio`` times as fast (one figure, or one per round): its verdict
    with the figure and its spread.

    >>> read_speedup("fused=True", [0.97, 1.04, 0.99], "AdamW's default")
    "fused=True made no real difference here: 0.99x AdamW's default (timed 3 times: 0.97x to 1.04x)."
    """
    r = Ratio.of(ratio)
    slower = " (slower)" if r.below else ""
    again = ": its rounds disagree too much to tell; run the cell again" if r.unsettled else ""
    return f"{change} {speedup_verdict(r)} here: {r.value:.2f}x {baseline}{slower}{r.spread()}{again}."


def _bound(work_ratio: float, time_ratio: float) -> str:
    share = (time_ratio - 1) / (work_ratio - 1)
    if not -NOISE_FLOOR <= share <= 1 + NOISE_FLOOR:
        # More work in less time, or in more than proportionally more: beyond the noise floor no limit explains it.
        return "unclear"
    if share < HOST_BOUND_BELOW:
        return "host"
    if share > COMPUTE_BOUND_ABOVE:
        return "compute"
    return "partly"


def bound_of(work_ratio: float, time_ratio: float | Sequence[float] | Ratio) -> str:
    """"host", "compute" or "partly": what limits a step that did ``work_ratio`` times the work in
    ``time_ratio`` times the time (one figure, or one per round). The share of the extra work that showed up as extra
    time, (time_ratio - 1) / (work_ratio - 1), is near 0 when a fixed cost per step (Python, dispatch, launches)
    dominates, and near 1 when the arithmetic does. "unclear" when the rounds give different answers, or a round
    that no limit explains (more work in less time, or in much more than proportionally more): no diagnosis."""
    if work_ratio <= 1:
        raise ValueError(f"work_ratio must be above 1, not {work_ratio}")
    found = {_bound(work_ratio, t) for t in Ratio.of(time_ratio).rounds}
    return found.pop() if len(found) == 1 else "unclear"


def read_bound(work_ratio: float, time_ratio: float | Sequence[float] | Ratio) -> str:
    """The diagnosis from a step timed at two sizes: ``work_ratio`` times the work took ``time_ratio`` times the
    time per step (one figure, or one per round)."""
    r = Ratio.of(time_ratio)
    rounds = (f" (rounds: {min(r.rounds):.2f}x to {max(r.rounds):.2f}x)" if len(r.rounds) > 1 else "")
    measured = f"{work_ratio:.0f}x the work per step took {r.value:.2f}x the time{rounds}"
    return {
        "host": f"host-bound here: {measured}, so most of the smaller step's time is a fixed cost (Python, "
                "PyTorch's dispatch, on a GPU the kernel launches), not arithmetic.",
        "compute": f"compute-bound here: {measured}, so the arithmetic sets the pace.",
        "partly": f"partly host-bound here: {measured}; both the fixed cost per step and the arithmetic count.",
        "unclear": f"not diagnosed here: {measured}, which the timings' noise explains better than any limit. Run "
                   "the cell again.",
    }[bound_of(work_ratio, r)]


def read_mixed_precision(ratio: float | Sequence[float] | Ratio, bound: str | None = None,
                         device_type: str = "cuda") -> str:
    """Mixed precision measured ``ratio`` times as fast as float32 on ``device_type`` ("cuda" or "cpu"), on a step
    that is ``bound`` (as :func:`bound_of` measured it: "host", "compute", "partly" or "unclear"; None when not
    diagnosed): the
    verdict, the figure, and a reason only where both the figure and the diagnosis support it."""
    r = Ratio.of(ratio)
    head = read_speedup("Mixed precision", r, "float32")
    if r.unsettled:
        return head
    if bound is None:
        return f"{head} Why depends on what limits this step (notebook 08's section 4 measures it)."
    if bound == "unclear":
        return f"{head} Why cannot be told here: the timings that diagnose this step disagreed."
    if r.above and bound == "host":
        # Faster arithmetic cannot shorten a host-bound step: the diagnosis and the figure disagree.
        return (f"{head} Yet this step measured host-bound, where faster arithmetic cannot shorten it: the gain came "
                "from elsewhere (fewer bytes to move, say) or from noise. Run the cell again before believing it.")
    if r.above:
        faster = ("this GPU does 16-bit arithmetic faster (on tensor cores, at several times float32's rate)"
                  if device_type == "cuda" else
                  "this CPU does 16-bit arithmetic faster (16-bit instructions, or half the bytes to move)")
        return f"{head} Why: the step spends its time in arithmetic, and {faster}."
    if bound == "host":
        why = ("this step is host-bound: most of its time goes to fixed costs per operation (Python, PyTorch's "
               "dispatch, the kernel launches), not to arithmetic, so faster arithmetic cannot shorten it")
        if r.below:
            why += (", and autocast adds cast operations (a GradScaler also its checks and a synchronization) to "
                    "every step")
        return f"{head} Why: {why}."
    # Compute-bound (or partly) and no gain: this figure cannot tell whether the 16-bit arithmetic itself is no
    # faster here (a CPU without bfloat16 instructions is slower in 16 bits) or the casts ate what it saved.
    return (f"{head} The step spends its time in arithmetic, yet its 16-bit version was not faster here: either "
            "this device's 16-bit arithmetic is no faster than its float32 (a CPU without bfloat16 instructions is "
            "slower in 16 bits), or the casts autocast adds cost what it saved. A 16-bit matmul timed alone tells "
            "the two apart (notebook 04's section 4).")


def read_utilization(percent: float | None) -> str:
    """A mean GPU utilization (percent of the time any kernel ran), or None without a reading, in words."""
    if percent is None:
        return "no reading here (no NVML and no nvidia-smi): nothing to diagnose from."
    # NVML counts kernels only: with the data already on the device (as where the course reads it) and no other
    # program on the GPU, the time no kernel ran is time the GPU waited for the host.
    if percent < 50:
        return (f"busy only {percent:.0f} % of the time: for the rest no kernel ran; with the data already on the "
                "device, that is the GPU waiting for the host (Python, the launches, synchronizations).")
    if percent < 85:
        return (f"busy {percent:.0f} % of the time: part of the time no kernel ran; with the data already on the "
                "device, the GPU still waited for the host then.")
    return (f"busy {percent:.0f} % of the time: the host keeps it fed (which says a kernel was running, "
            "not how much of the GPU it used).")


def read_unsynced_timer(unsynced_ms: float, synced_ms: float) -> str:
    """A step timed without a synchronize at the end (``unsynced_ms``) against the same steps with one."""
    ratio = unsynced_ms / synced_ms
    read = f"without a synchronize the clock read {100 * ratio:.0f} % of the real time"
    if ratio < 0.5:
        return f"{read}: it stopped while the work was still queued on the GPU."
    if Ratio.of(ratio).below:   # the course's noise band: within 10 % of the real time reads as "about right"
        return f"{read}: part of the work was still queued when it stopped."
    return (f"{read}, about right: the host did not get ahead of the GPU (the step waited for it, or the host "
            "itself set the pace).")


def read_accuracy(accuracy: float, target: float) -> str:
    """A test accuracy against the ``target`` the run was meant to reach."""
    reached = "reaches" if accuracy >= target else "is short of"
    return f"{100 * accuracy:.2f} % test accuracy: {reached} the {100 * target:.0f} % target."
