# breaks: "read time.perf_counter()"
# how: uses time.time(), the wall clock, instead.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        synchronize(device)
        t0 = time.time()
        fn()
        synchronize(device)
        times.append((time.time() - t0) * 1e3)
    return times
