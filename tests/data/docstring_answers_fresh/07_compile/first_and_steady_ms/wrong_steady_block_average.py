# breaks: "steady_median_ms: the median (...) of the `repeats` later calls, each timed on its own"
# how: times the `repeats` later calls as one block and returns their mean duration.
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    synchronize(device)
    start = time.perf_counter()
    fn(x)
    synchronize(device)
    first_ms = (time.perf_counter() - start) * 1e3
    synchronize(device)
    start = time.perf_counter()
    for _ in range(repeats):
        fn(x)
    synchronize(device)
    return first_ms, (time.perf_counter() - start) * 1e3 / repeats
