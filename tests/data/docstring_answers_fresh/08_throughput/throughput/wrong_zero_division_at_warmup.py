# breaks: "Raises ValueError if no batch is left after the warm-up"
# how: raises only when there are FEWER than `warmup` batches; exactly `warmup` batches return 0.0 examples/s.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    data = list(batches)
    if len(data) < warmup:
        raise ValueError(f"need more than {warmup} batches")
    for x, y in data[:warmup]:
        step_fn(x, y)
    synchronize(device)
    start = time.perf_counter()
    examples = 0
    for x, y in data[warmup:]:
        step_fn(x, y)
        examples += len(x)
    synchronize(device)
    return examples / (time.perf_counter() - start)
