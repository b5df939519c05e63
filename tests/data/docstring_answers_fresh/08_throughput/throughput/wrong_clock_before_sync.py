# breaks: "the clock (time.perf_counter()) starts right after synchronize(device), once the warm-up batches have run"
# how: reads the clock first and synchronizes after, so the warm-up's queued work is timed.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    examples = 0
    start = None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            start = time.perf_counter()
            synchronize(device)
        step_fn(x, y)
        if i >= warmup:
            examples += len(x)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
