# breaks: "examples are len(x) of each measured batch."
# how: counts examples as (number of measured batches) * len(first measured x), wrong for a short last batch
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    count = 0
    size = None
    t0 = None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            t0 = time.perf_counter()
            size = len(x)
        step_fn(x, y)
        if i >= warmup:
            count += 1
    if count == 0:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return float(count * size / (time.perf_counter() - t0))
