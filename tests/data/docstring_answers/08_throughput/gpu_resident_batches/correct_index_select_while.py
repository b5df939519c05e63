# reading: index_select is the same gather as x[idx]; n taken from x (y has the same length).
# how: a while loop over start offsets, index_select on dim 0.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    start = 0
    while start < n:
        stop = min(start + batch_size, n)
        if drop_last and stop - start < batch_size:
            return
        idx = perm[start:stop]
        yield x.index_select(0, idx), y.index_select(0, idx)
        start = stop
