"""Timing that tells the truth on asynchronous devices (the reference for notebooks 07 and 08).

Notebook 03 has students write these themselves; later notebooks import them from here.
"""

from __future__ import annotations

import statistics
import time

import torch


def synchronize(device) -> None:
    """Wait until every queued operation on ``device`` has finished (no-op on the CPU)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def time_ms(fn, device, warmup: int = 3, repeats: int = 10) -> list[float]:
    """Milliseconds of ``repeats`` calls of ``fn()``, after ``warmup`` untimed calls, each synchronized."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def median_ms(fn, device, warmup: int = 3, repeats: int = 10) -> float:
    return statistics.median(time_ms(fn, device, warmup, repeats))
