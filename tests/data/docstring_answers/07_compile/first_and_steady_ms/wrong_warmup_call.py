# breaks: "fn(x) is called exactly 1 + repeats times, with no warm-up."
# how: one untimed warm-up call before the measured ones (so first_ms misses the compilation).
import statistics
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    fn(x)
    times = []
    for _ in range(1 + repeats):
        synchronize(device)
        t0 = time.perf_counter()
        fn(x)
        synchronize(device)
        times.append((time.perf_counter() - t0) * 1000)
    return times[0], statistics.median(times[1:])
