# breaks: "for each, synchronize(device) ..., read time.perf_counter(), call fn(), synchronize(device)"
# how: waits with torch.cuda.synchronize() when the machine has CUDA, and not at all otherwise, so work queued on
# an MPS device is timed while it is still queued
import time

import torch


def _wait():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        _wait()
        t0 = time.perf_counter()
        fn()
        _wait()
        times.append((time.perf_counter() - t0) * 1e3)
    return times
