# breaks: "the short last batch only when drop_last is False"
# how: data that fits in one batch is yielded whole, as it is, whatever drop_last says
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    if n <= batch_size:
        yield x, y
        return
    perm = torch.randperm(n, device=x.device, generator=generator)
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        yield x[idx], y[idx]
