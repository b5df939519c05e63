# breaks: "x and y with no rows give no batch, or one empty batch when drop_last is False: both are accepted"
# how: raises ValueError for data with no rows
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    if n == 0:
        raise ValueError("no data to draw batches from")
    perm = torch.randperm(n, device=x.device, generator=generator)
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        yield x[idx], y[idx]
