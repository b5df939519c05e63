# breaks: "the clock (time.perf_counter()) starts right after synchronize(device), once the warm-up batches have run"
# how: starts the clock inside the loop right after batch warmup - 1; with warmup=0 that batch never comes and the clock never starts.
import time


def throughput(step_fn, batches, device, warmup=3) -> float:
    start = None
    examples = 0
    for i, (x, y) in enumerate(batches):
        step_fn(x, y)
        if i == warmup - 1:
            synchronize(device)
            start = time.perf_counter()
        elif i >= warmup:
            examples += len(x)
    if examples == 0:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
