# reading: the ValueError is raised after the warm-up batches have run (either order is allowed).
# how: one iterator, next() with a sentinel for the warm-up, a running example count.
import time

_END = object()


def throughput(step_fn, batches, device, warmup=3) -> float:
    source = iter(batches)
    for _ in range(warmup):
        batch = next(source, _END)
        if batch is _END:
            break
        step_fn(*batch)
    synchronize(device)
    started = time.perf_counter()
    examples = 0
    for x, y in source:
        step_fn(x, y)
        examples += len(x)
    synchronize(device)
    stopped = time.perf_counter()
    if examples == 0:
        raise ValueError("no batch left after the warm-up")
    return float(examples / (stopped - started))
