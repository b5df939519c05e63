# breaks: "synchronize(device) before starting the clock and again after the call, before reading it."
# how: synchronizes only after each call; the first call's clock starts with earlier queued work still running.
import statistics
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    def timed():
        start = time.perf_counter()
        fn(x)
        synchronize(device)
        return (time.perf_counter() - start) * 1000

    first = timed()
    steady = [timed() for _ in range(repeats)]
    return first, statistics.median(steady)
