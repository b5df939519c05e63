# breaks: "and stops after a final synchronize(device)"
# how: reads the clock right after the last step, while the device may still be working.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    it = iter(batches)
    for _ in range(warmup):
        x, y = next(it)
        step_fn(x, y)
    synchronize(device)
    start = time.perf_counter()
    examples = 0
    for x, y in it:
        step_fn(x, y)
        examples += len(x)
    if examples == 0:
        raise ValueError("no batch left after the warm-up")
    return examples / (time.perf_counter() - start)
