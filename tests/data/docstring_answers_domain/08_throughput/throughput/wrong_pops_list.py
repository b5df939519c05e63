# breaks: "batches (any iterable of (x, y), a generator too) is read once"
# how: empties a list of batches with pop(0) as it goes (to free each batch once used), so the caller's list is emptied
def throughput(step_fn, batches, device, warmup=3) -> float:
    if isinstance(batches, list):
        def drain():
            while batches:
                yield batches.pop(0)
        source = drain()
    else:
        source = iter(batches)
    examples, start = 0, None
    for i, (x, y) in enumerate(source):
        if i == warmup:
            synchronize(device)
            start = time.perf_counter()
        step_fn(x, y)
        if i >= warmup:
            examples += len(x)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
