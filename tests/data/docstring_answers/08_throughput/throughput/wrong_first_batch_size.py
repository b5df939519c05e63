# breaks: "examples are len(x) of each measured batch."
# how: counts batches and multiplies by the first measured batch's size (wrong with a short last batch).
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    it = iter(batches)
    for _, (x, y) in zip(range(warmup), it):
        step_fn(x, y)
    synchronize(device)
    start = time.perf_counter()
    count, batch_size = 0, None
    for x, y in it:
        step_fn(x, y)
        batch_size = batch_size or len(x)
        count += 1
    synchronize(device)
    if count == 0:
        raise ValueError("no batch left after the warm-up")
    return count * batch_size / (time.perf_counter() - start)
