# breaks: "Call fn() warmup times untimed, then time repeats calls ... Return a list of repeats floats"
# how: times every call, warm-up included, and keeps times[-repeats:], which is every call when repeats is 0
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    times = []
    for _ in range(warmup + repeats):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append((time.perf_counter() - start) * 1e3)
    return times[-repeats:]
