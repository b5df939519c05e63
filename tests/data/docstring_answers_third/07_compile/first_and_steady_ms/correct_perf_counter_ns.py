# reading: times kept as integer nanoseconds and converted once; both results Python floats
# how: perf_counter_ns pairs, statistics.median on the ns list, division by 1e6 at the end
import statistics
import time


def _timed_ns(fn, x, device):
    synchronize(device)
    start = time.perf_counter_ns()
    fn(x)
    synchronize(device)
    return time.perf_counter_ns() - start


def first_and_steady_ms(fn, x, device, repeats=10):
    first_ns = _timed_ns(fn, x, device)
    later_ns = [_timed_ns(fn, x, device) for _ in range(repeats)]
    return first_ns / 1e6, float(statistics.median(later_ns)) / 1e6
