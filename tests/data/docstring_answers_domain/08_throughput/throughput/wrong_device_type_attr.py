# breaks: "the clock (time.perf_counter()) starts right after synchronize(device), once the warm-up batches have run"
# how: skips synchronize for a CPU by reading device.type, which a device given as a str ("cuda", "cpu") lacks
def throughput(step_fn, batches, device, warmup=3) -> float:
    examples, start = 0, None
    for i, (x, y) in enumerate(batches):
        if i == warmup:
            if device.type != "cpu":
                synchronize(device)
            start = time.perf_counter()
        step_fn(x, y)
        if i >= warmup:
            examples += len(x)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    if device.type != "cpu":
        synchronize(device)
    return examples / (time.perf_counter() - start)
