# breaks: "Call fn() warmup times untimed"
# how: always does at least one warm-up call ("timing a cold first call is never what you want"), so warmup=0 calls fn once too often.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(max(1, warmup)):
        fn()
    out = []
    for _ in range(repeats):
        synchronize(device)
        t0 = time.perf_counter()
        fn()
        synchronize(device)
        out.append((time.perf_counter() - t0) * 1e3)
    return out
