# breaks: "Call fn() warmup times untimed, then time repeats calls" (fn, as the caller would run it)
# how: runs every call under torch.no_grad() so that timing builds no autograd graph: a training step timed with it
# cannot call backward
import time

import torch


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    with torch.no_grad():
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
