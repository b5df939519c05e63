# breaks: "and stops after a final synchronize(device)"
# how: stops the clock right after the last step_fn returns, with its work possibly still queued.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    it = iter(batches)
    for _, (x, y) in zip(range(warmup), it):
        step_fn(x, y)
    synchronize(device)
    start = time.perf_counter()
    n = 0
    for x, y in it:
        step_fn(x, y)
        n += len(x)
    elapsed = time.perf_counter() - start
    if n == 0:
        raise ValueError("no batch left after the warm-up")
    return n / elapsed
