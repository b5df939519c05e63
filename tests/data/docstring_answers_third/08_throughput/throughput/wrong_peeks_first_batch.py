# breaks: "batches (any iterable of (x, y), a generator too) is read once; every batch goes through step_fn(x, y), once, in order"
# how: peeks at next(iter(batches)) to fail early on empty input, then iterates again: a generator loses its first batch
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    if next(iter(batches), None) is None:
        raise ValueError("no batches at all")
    n = 0
    t0 = None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            t0 = time.perf_counter()
        step_fn(x, y)
        if i >= warmup:
            n += len(x)
    if t0 is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return n / (time.perf_counter() - t0)
