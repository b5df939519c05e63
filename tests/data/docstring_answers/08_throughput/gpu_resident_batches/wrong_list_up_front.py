# breaks: "Each batch is sliced only when it is asked for (yield, no list made up front, no copy of x or y)"
# how: builds the list of all batches first, then yields from it.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    batches = []
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        batches.append((x[idx], y[idx]))
    yield from batches
