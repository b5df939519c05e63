# breaks: "the warm-up batches are neither counted nor timed; the clock (time.perf_counter()) starts right after synchronize(device), once the warm-up batches have run"
# how: starts the clock before the warm-up, so the warm-up time is in the denominator.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    synchronize(device)
    start = time.perf_counter()
    examples = 0
    for i, (x, y) in enumerate(batches):
        step_fn(x, y)
        if i >= warmup:
            examples += len(x)
    synchronize(device)
    if examples == 0:
        raise ValueError("no batch left after the warm-up")
    return examples / (time.perf_counter() - start)
