"""GPU utilization readings: the diagnosis for a model too small to keep the GPU busy.

:func:`gpu_utilization` reads the share of time the GPU was busy; :class:`UtilizationSampler` averages it
over a block of code. (The simulated asynchronous GPU that notebooks 03, 07 and 08 time on a CPU is
:mod:`gpucourse.simdevice`.)
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
