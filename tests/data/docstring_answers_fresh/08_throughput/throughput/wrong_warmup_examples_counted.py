# breaks: "the warm-up batches are neither counted nor timed"
# how: the warm-up batches are not timed, but their examples are added to the count.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    total = 0
    measured = 0
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            start = time.perf_counter()
        step_fn(x, y)
        total += len(x)
        measured += i >= warmup
    if not measured:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return total / (time.perf_counter() - start)
