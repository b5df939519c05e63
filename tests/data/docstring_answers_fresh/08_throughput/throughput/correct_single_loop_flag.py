# reading: one loop; the clock starts when the first measured batch arrives (after the warm-up ran).
# how: a None start time doubles as "nothing measured yet"; the seconds are summed once at the end.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    t_start = None
    counted = 0
    for index, batch in enumerate(batches):
        x, y = batch
        if index == warmup:
            synchronize(device)
            t_start = time.perf_counter()
        step_fn(x, y)
        if t_start is not None:
            counted += len(x)
    if t_start is None:
        raise ValueError("every batch was a warm-up batch")
    synchronize(device)
    seconds = time.perf_counter() - t_start
    return counted / seconds
