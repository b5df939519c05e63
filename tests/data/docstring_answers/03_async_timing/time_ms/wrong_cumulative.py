# breaks: "each call's own duration, from its own start, in milliseconds."
# how: reads the clock once before the loop, so each entry is the time since the first timed call began.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    synchronize(device)
    start = time.perf_counter()
    times = []
    for _ in range(repeats):
        fn()
        synchronize(device)
        times.append((time.perf_counter() - start) * 1000)
    return times
