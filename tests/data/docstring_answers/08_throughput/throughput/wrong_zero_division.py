# breaks: "Raises ValueError if no batch is left after the warm-up"
# how: no check: with nothing left to measure it returns 0 examples / elapsed = 0.0.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    it = iter(batches)
    for _, (x, y) in zip(range(warmup), it):
        step_fn(x, y)
    synchronize(device)
    start = time.perf_counter()
    examples = 0
    for x, y in it:
        step_fn(x, y)
        examples += len(x)
    synchronize(device)
    return examples / (time.perf_counter() - start)
