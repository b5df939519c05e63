# breaks: "(first_ms, steady_median_ms) ...; two floats, in milliseconds."
# how: returns perf_counter differences in seconds.
import statistics
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    times = []
    for _ in range(1 + repeats):
        synchronize(device)
        t0 = time.perf_counter()
        fn(x)
        synchronize(device)
        times.append(time.perf_counter() - t0)
    return times[0], statistics.median(times[1:])
