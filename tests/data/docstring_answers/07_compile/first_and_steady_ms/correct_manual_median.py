# reading: the median computed by hand matches statistics.median (mean of the two middle values for an even count).
# how: sorted list, middle index arithmetic.
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    durations = []
    for _ in range(repeats + 1):
        synchronize(device)
        began = time.perf_counter()
        fn(x)
        synchronize(device)
        durations.append(1000.0 * (time.perf_counter() - began))
    first, rest = durations[0], sorted(durations[1:])
    mid = len(rest) // 2
    median = rest[mid] if len(rest) % 2 else (rest[mid - 1] + rest[mid]) / 2
    return first, median
