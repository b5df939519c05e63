# reading: listing the batches first is one read; the ValueError comes before any step runs
# how: list() once, a guard before any step, sum of len over the measured slice, time imported under another name
import time as clock


def throughput(step_fn, batches, device, warmup=3) -> float:
    every = list(batches)
    measured = every[warmup:]
    if len(measured) == 0:
        raise ValueError("no batch left after the warm-up")
    for batch in every[:warmup]:
        step_fn(*batch)
    synchronize(device)
    began = clock.perf_counter()
    for batch in measured:
        step_fn(batch[0], batch[1])
    synchronize(device)
    seconds = clock.perf_counter() - began
    return sum(len(batch[0]) for batch in measured) / seconds
