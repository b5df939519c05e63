# reading: perf_counter_ns (allowed), converted to float milliseconds; statistics.median of the later calls.
# how: a helper returns one call's nanoseconds; the first call and the rest share it.
import statistics
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    def call_ns():
        synchronize(device)
        began = time.perf_counter_ns()
        fn(x)
        synchronize(device)
        return time.perf_counter_ns() - began

    first_ns = call_ns()
    later = [call_ns() for _ in range(repeats)]
    return first_ns / 1e6, float(statistics.median(later)) / 1e6
