# breaks: "synchronize(device) before starting the clock and again after the call, before reading it."
# how: synchronizes only after each call.
import statistics
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    times = []
    for _ in range(1 + repeats):
        t0 = time.perf_counter()
        fn(x)
        synchronize(device)
        times.append((time.perf_counter() - t0) * 1000)
    return times[0], statistics.median(times[1:])
