# breaks: "consecutive slices of batch_size of it index both x and y"
# how: yields the labels as int64 (y[idx].long(), what cross_entropy wants), so other label dtypes come back converted
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        yield x[idx], y[idx].long()
