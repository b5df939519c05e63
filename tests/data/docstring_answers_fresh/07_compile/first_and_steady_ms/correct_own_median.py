# reading: the median written by hand, the mean of the two middle times for an even count (as statistics.median).
# how: one loop over 1 + repeats calls, the first split off afterwards; a helper computes the median.
import time


def _middle(values):
    ordered = sorted(values)
    half, odd = divmod(len(ordered), 2)
    return float(ordered[half]) if odd else (ordered[half - 1] + ordered[half]) / 2.0


def first_and_steady_ms(fn, x, device, repeats=10):
    durations = []
    for _ in range(repeats + 1):
        synchronize(device)
        t_start = time.perf_counter()
        fn(x)
        synchronize(device)
        durations.append(1000.0 * (time.perf_counter() - t_start))
    first, rest = durations[0], durations[1:]
    return float(first), _middle(rest)
