# breaks: "every batch goes through step_fn(x, y), once, in order"
# how: runs the warm-up batches under torch.no_grad() (they are not measured, so no gradients are needed)
def throughput(step_fn, batches, device, warmup=3) -> float:
    examples, start = 0, None
    for i, (x, y) in enumerate(batches):
        if i < warmup:
            with torch.no_grad():
                step_fn(x, y)
            continue
        if start is None:
            synchronize(device)
            start = time.perf_counter()
        step_fn(x, y)
        examples += len(x)
    if start is None:
        raise ValueError("no batch left after the warm-up")
    synchronize(device)
    return examples / (time.perf_counter() - start)
