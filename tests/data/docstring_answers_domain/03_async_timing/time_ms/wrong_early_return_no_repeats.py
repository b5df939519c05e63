# breaks: "Call fn() warmup times untimed, then time repeats calls"
# how: returns [] at once when there is nothing to time, skipping the warm-up calls too
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    if repeats <= 0:
        return []
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append((time.perf_counter() - start) * 1e3)
    return times
