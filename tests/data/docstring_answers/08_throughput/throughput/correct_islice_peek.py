# reading: the emptiness check is done before the clock starts, by taking the first measured batch from the iterator.
# how: itertools.islice for the warm-up, next() to peek, itertools.chain to put it back.
import itertools
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    stream = iter(batches)
    for x, y in itertools.islice(stream, warmup):
        step_fn(x, y)
    try:
        head = next(stream)
    except StopIteration:
        raise ValueError(f"no batch left after {warmup} warm-up batches") from None
    n_examples = 0
    synchronize(device)
    t_start = time.perf_counter()
    for x, y in itertools.chain([head], stream):
        step_fn(x, y)
        n_examples += len(x)
    synchronize(device)
    return n_examples / (time.perf_counter() - t_start)
