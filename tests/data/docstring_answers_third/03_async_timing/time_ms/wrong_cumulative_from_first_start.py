# breaks: "each call's own duration, from its own start, in milliseconds."
# how: measures every call from the first timed call's start (running totals)
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    out = []
    t0 = time.perf_counter()
    for _ in range(repeats):
        synchronize(device)
        fn()
        synchronize(device)
        out.append((time.perf_counter() - t0) * 1000)
    return out
