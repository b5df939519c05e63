# breaks: "Return a list of repeats floats in call order"
# how: returns the durations sorted (handy for a median), which loses the call order.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append(1000 * (time.perf_counter() - start))
    return sorted(times)
