# breaks: "for each, synchronize(device) ..., call fn(), synchronize(device)"
# how: skips synchronize unless the device is spelt "cuda" or "mps" (nothing to wait for on the CPU, it reasons),
# so "cuda:0" and torch.device("cuda") are never waited for
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    wait = str(device) in ("cuda", "mps")
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        if wait:
            synchronize(device)
        start = time.perf_counter()
        fn()
        if wait:
            synchronize(device)
        out.append((time.perf_counter() - start) * 1000.0)
    return out
