# breaks: "each call's own duration, from its own start, in milliseconds."
# how: one chain of time stamps (read after each closing synchronize); each duration runs from the previous
#      stamp, so it also includes the loop overhead and the next opening synchronize.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    synchronize(device)
    stamps = [time.perf_counter()]
    for _ in range(repeats):
        synchronize(device)
        fn()
        synchronize(device)
        stamps.append(time.perf_counter())
    return [(b - a) * 1e3 for a, b in zip(stamps, stamps[1:])]
