# breaks: "steady_median_ms: the median (statistics.median: for an even repeats, the mean of the two middle times)"
# how: takes sorted(times)[repeats // 2], the upper middle time, for an even repeats.
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    synchronize(device)
    t0 = time.perf_counter()
    fn(x)
    synchronize(device)
    first = (time.perf_counter() - t0) * 1e3
    times = []
    for _ in range(repeats):
        synchronize(device)
        t0 = time.perf_counter()
        fn(x)
        synchronize(device)
        times.append((time.perf_counter() - t0) * 1e3)
    return first, sorted(times)[len(times) // 2]
