# reading: the durations may be produced lazily and collected at the end; perf_counter_ns is time.perf_counter's clock
# how: a generator of its own yields one duration per call, from integer nanoseconds; a torch.device made once
import time

import torch


def _timed_calls(fn, device, count):
    for _ in range(count):
        synchronize(device)
        begin = time.perf_counter_ns()
        fn()
        synchronize(device)
        yield (time.perf_counter_ns() - begin) / 1_000_000


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    dev = torch.device(device)
    done = 0
    while done < warmup:
        fn()
        done += 1
    return list(_timed_calls(fn, dev, repeats))
