# breaks: "examples are len(x) of each measured batch."
# how: counts x.numel() // x[0].numel() (elements over elements per example): wrong for examples with no elements
def throughput(step_fn, batches, device, warmup=3) -> float:
    examples, start = 0, None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            start = time.perf_counter()
        step_fn(x, y)
        if i >= warmup and x.numel() > 0:
            examples += x.numel() // max(x[0].numel(), 1)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
