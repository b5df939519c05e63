# breaks: "the median (statistics.median: for an even repeats, the mean of the two middle times)"
# how: picks sorted(times)[len // 2], the upper middle for an even count
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    def once():
        synchronize(device)
        t0 = time.perf_counter()
        fn(x)
        synchronize(device)
        return (time.perf_counter() - t0) * 1000

    first = once()
    steady = sorted(once() for _ in range(repeats))
    return first, steady[len(steady) // 2]
