# breaks: "the first call is not among them."
# how: times all 1 + repeats calls in one loop and takes the median of all of them, the first included.
import statistics
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    times = []
    for _ in range(1 + repeats):
        synchronize(device)
        t = time.perf_counter()
        fn(x)
        synchronize(device)
        times.append((time.perf_counter() - t) * 1e3)
    return times[0], statistics.median(times)
