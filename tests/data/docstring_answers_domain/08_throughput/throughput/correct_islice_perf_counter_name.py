# reading: the warm-up batches run before the ValueError (it is raised once the measured part is found empty)
# how: itertools.islice for the warm-up, perf_counter imported by name, examples counted with x.shape[0]
import itertools
from time import perf_counter


def throughput(step_fn, batches, device, warmup=3) -> float:
    stream = iter(batches)
    for x, y in itertools.islice(stream, warmup):
        step_fn(x, y)
    synchronize(device)
    t_start = perf_counter()
    total, seen = 0, 0
    for x, y in stream:
        step_fn(x, y)
        total += x.shape[0]
        seen += 1
    if seen == 0:
        raise ValueError(f"{warmup} warm-up batches left nothing to measure")
    synchronize(device)
    return float(total) / (perf_counter() - t_start)
