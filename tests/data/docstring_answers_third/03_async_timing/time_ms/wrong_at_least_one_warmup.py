# breaks: "Call fn() warmup times untimed"
# how: always does at least one warm-up call (warmup=0 still calls fn once untimed)
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(max(1, warmup)):
        fn()
    out = []
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        out.append((time.perf_counter() - start) * 1000.0)
    return out
