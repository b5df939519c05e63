# reading: perf_counter_ns is allowed; the ns are converted to ms with a true division
# how: perf_counter_ns imported by name, a for loop, statistics.median on the ms list
import statistics
from time import perf_counter_ns


def first_and_steady_ms(fn, x, device, repeats=10):
    durations = []
    for _ in range(1 + repeats):
        synchronize(device)
        began = perf_counter_ns()
        fn(x)
        synchronize(device)
        durations.append((perf_counter_ns() - began) / 1e6)
    return float(durations[0]), float(statistics.median(durations[1:]))
