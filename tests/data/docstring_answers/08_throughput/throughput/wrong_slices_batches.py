# breaks: "batches (any iterable of (x, y), a generator too) is read once"
# how: slices batches[warmup:], which only works for a list.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    for x, y in batches[:warmup]:
        step_fn(x, y)
    measured = batches[warmup:]
    if not measured:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    start = time.perf_counter()
    examples = 0
    for x, y in measured:
        step_fn(x, y)
        examples += len(x)
    synchronize(device)
    return examples / (time.perf_counter() - start)
