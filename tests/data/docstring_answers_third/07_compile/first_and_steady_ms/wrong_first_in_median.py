# breaks: "the first call is not among them."
# how: takes the median over all 1 + repeats timings
import statistics
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    times = []
    for _ in range(1 + repeats):
        synchronize(device)
        t0 = time.perf_counter()
        fn(x)
        synchronize(device)
        times.append((time.perf_counter() - t0) * 1000)
    return times[0], statistics.median(times)
