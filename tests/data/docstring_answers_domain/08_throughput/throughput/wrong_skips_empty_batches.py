# breaks: "every batch goes through step_fn(x, y), once, in order"
# how: skips a batch with no examples (len(x) == 0) instead of running it through step_fn
def throughput(step_fn, batches, device, warmup=3) -> float:
    examples, start = 0, None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            start = time.perf_counter()
        if len(x) == 0:
            continue
        step_fn(x, y)
        if i >= warmup:
            examples += len(x)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
