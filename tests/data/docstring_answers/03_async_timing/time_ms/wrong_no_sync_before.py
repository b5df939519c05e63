# breaks: "for each, synchronize(device), read time.perf_counter(), call fn(), synchronize(device), read time.perf_counter() again."
# how: synchronizes only after the call; work still queued from before is counted in the next call.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        synchronize(device)
        times.append((time.perf_counter() - t0) * 1e3)
    return times
