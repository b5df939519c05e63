# breaks: "Raises ValueError if no batch is left after the warm-up"
# how: returns 0.0 examples per second when nothing was measured
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    it = iter(batches)
    for _, (x, y) in zip(range(warmup), it):
        step_fn(x, y)
    synchronize(device)
    t0 = time.perf_counter()
    n = 0
    for x, y in it:
        step_fn(x, y)
        n += len(x)
    synchronize(device)
    if n == 0:
        return 0.0
    return n / (time.perf_counter() - t0)
