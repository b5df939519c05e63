# breaks: "every batch goes through step_fn(x, y), once, in order"
# how: catches what step_fn raises and raises a RuntimeError naming the batch instead (the caller's exception is lost)
def throughput(step_fn, batches, device, warmup=3) -> float:
    examples, start = 0, None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            synchronize(device)
            start = time.perf_counter()
        try:
            step_fn(x, y)
        except Exception as error:
            raise RuntimeError(f"step_fn failed on batch {i}") from error
        if i >= warmup:
            examples += len(x)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
