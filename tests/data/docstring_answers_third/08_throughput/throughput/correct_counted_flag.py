# reading: an empty measured part raises before any clock is read for a result; the warm-up batches run first
# how: one for loop with enumerate; the clock starts lazily at the first measured batch; batches counted separately from examples
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    started_at = None
    examples = 0
    measured_batches = 0
    for index, (x, y) in enumerate(batches):
        if index == warmup:
            synchronize(device)
            started_at = time.perf_counter()
        step_fn(x, y)
        if index >= warmup:
            examples += len(x)
            measured_batches += 1
    if measured_batches == 0:
        raise ValueError(f"only {warmup} warm-up batches or fewer: nothing to measure")
    synchronize(device)
    elapsed = time.perf_counter() - started_at
    return float(examples) / elapsed
