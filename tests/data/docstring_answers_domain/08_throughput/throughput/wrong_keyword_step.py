# breaks: "every batch goes through step_fn(x, y), once, in order"
# how: calls step_fn(x=x, y=y) by keyword, which fails for a step whose parameters have other names
def throughput(step_fn, batches, device, warmup=3) -> float:
    examples, start = 0, None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            start = time.perf_counter()
        step_fn(x=x, y=y)
        if i >= warmup:
            examples += len(x)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
