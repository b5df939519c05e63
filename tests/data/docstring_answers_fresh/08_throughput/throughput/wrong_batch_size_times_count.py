# breaks: "examples are len(x) of each measured batch."
# how: counts measured batches and multiplies by the first batch's size, so a short last batch is over-counted.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    measured = 0
    batch_size = None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            start = time.perf_counter()
        step_fn(x, y)
        if i >= warmup:
            measured += 1
            batch_size = batch_size or len(x)
    if measured == 0:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return float(measured * batch_size / (time.perf_counter() - start))
