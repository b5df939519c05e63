"""The machine a book's pages ran on, named on every page: speed figures and the sentences chosen from them are
this machine's, so a reader must be able to see which machine (and whether it was busy) without asking."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Machine:
    cpu: str
    cores: int
    gpu: str  # "" without a CUDA GPU
    torch: str
    python: str

    def named(self) -> str:
        """One phrase: the GPU where there is one (it made the figures), else the CPU."""
        cpu = f"{self.cpu} ({self.cores} core{'s' if self.cores != 1 else ''})"
        return f"GPU {self.gpu}, CPU {cpu}" if self.gpu else f"CPU {cpu}, no GPU"


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's marketing name (Linux's /proc/cpuinfo), else what the platform module knows."""
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model") and value.strip():
                return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "an unknown CPU"


def describe() -> Machine:
    """This machine: the notebooks' kernels run here, so what this process sees is what they saw."""
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""
    return Machine(cpu=cpu_model(), cores=os.cpu_count() or 1, gpu=gpu, torch=torch.__version__,
                   python=platform.python_version())


def page_note(machine: Machine, date: str, quick: bool, seconds: float, together: int) -> str:
    """The note at the top of a chapter (MyST admonition): where, when and how it ran, and whether its speed
    figures were taken while other notebooks ran beside it."""
    mode = ("quick mode (`COURSE_QUICK=1`: shorter demonstrations and training runs)" if quick
            else "full mode")
    if together > 1:
        alone = (f"**{together} notebooks ran at once** on this machine: the speed figures on this page were "
                 "taken under that contention and are slower than the machine gives one notebook alone")
    else:
        alone = "one notebook at a time, so nothing else of the build competed with its measurements"
    return (f"```{{admonition}} Where this page ran\n:class: note\n"
            f"Executed {date} on {machine.named()}, with torch {machine.torch} and Python {machine.python}, "
            f"in {mode}; {alone}. It took {seconds:.0f} s. Figures and timings on another machine will differ; "
            f"`python -m graders book` rebuilds the book on yours.\n```")
