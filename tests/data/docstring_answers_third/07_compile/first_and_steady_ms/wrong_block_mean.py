# breaks: "the `repeats` later calls, each timed on its own"
# how: times the steady calls as one block and divides by repeats (a mean, not a median of single calls)
import time


def first_and_steady_ms(fn, x, device, repeats=10):
    synchronize(device)
    t0 = time.perf_counter()
    fn(x)
    synchronize(device)
    first = (time.perf_counter() - t0) * 1000
    synchronize(device)
    t1 = time.perf_counter()
    for _ in range(repeats):
        fn(x)
    synchronize(device)
    return first, (time.perf_counter() - t1) * 1000 / repeats
