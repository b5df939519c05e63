# reading: when there are too few batches, the warm-up batches have run before the ValueError.
# how: itertools.islice consumes the warm-up; next(it, None) finds the first measured batch.
import itertools
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    it = iter(batches)
    for x, y in itertools.islice(it, warmup):
        step_fn(x, y)
    first = next(it, None)
    if first is None:
        raise ValueError(f"no batch left after {warmup} warm-up batches")
    synchronize(device)
    t0 = time.perf_counter()
    examples = 0
    for x, y in itertools.chain([first], it):
        step_fn(x, y)
        examples += len(x)
    synchronize(device)
    return float(examples / (time.perf_counter() - t0))
