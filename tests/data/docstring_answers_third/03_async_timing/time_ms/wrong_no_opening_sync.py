# breaks: "for each, synchronize(device) (nothing earlier may still be queued; ...), read time.perf_counter()"
# how: skips the synchronize before each start, so work the warm-up queued lands in the first timing
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        synchronize(device)
        out.append((time.perf_counter() - t0) * 1000)
    return out
