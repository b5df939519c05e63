# breaks: "the clock (time.perf_counter()) starts right after synchronize(device), once the warm-up batches have run"
# how: reads the clock first and synchronizes after, so the warm-up's queued work is timed
import itertools
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    it = iter(batches)
    for x, y in itertools.islice(it, warmup):
        step_fn(x, y)
    t0 = time.perf_counter()
    synchronize(device)
    n = 0
    for x, y in it:
        step_fn(x, y)
        n += len(x)
    if n == 0:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return n / (time.perf_counter() - t0)
