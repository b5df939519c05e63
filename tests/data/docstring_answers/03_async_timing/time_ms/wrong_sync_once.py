# breaks: "for each, synchronize(device), read time.perf_counter(), call fn(), synchronize(device), read time.perf_counter() again."
# how: synchronizes once before the loop (after the warm-up), not before every timed call.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    synchronize(device)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        synchronize(device)
        times.append((time.perf_counter() - t0) * 1e3)
    return times
