# reading: perf_counter_ns is allowed; nanoseconds converted to float milliseconds.
# how: a timing helper on perf_counter_ns, statistics.median.
import statistics
import time


def _call_ms(fn, x, device):
    synchronize(device)
    start = time.perf_counter_ns()
    fn(x)
    synchronize(device)
    return (time.perf_counter_ns() - start) / 1e6


def first_and_steady_ms(fn, x, device, repeats=10):
    first_ms = _call_ms(fn, x, device)
    later = [_call_ms(fn, x, device) for _ in range(repeats)]
    return float(first_ms), float(statistics.median(later))
