# breaks: "for each, synchronize(device) (nothing earlier may still be queued; the previous call's closing synchronize already ensures it)"
# how: relies on "the previous call's closing synchronize" for every call, so the first timed call starts with the
#      warm-up calls' work still queued.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    durations = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        synchronize(device)
        durations.append((time.perf_counter() - start) * 1000.0)
    return durations
