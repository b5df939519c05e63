# breaks: "no copy of x or y"
# how: shuffles x and y once (x[perm], a full copy) and then yields contiguous slices of the copies.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    xs, ys = x[perm], y[perm]
    for start in range(0, n, batch_size):
        if drop_last and start + batch_size > n:
            break
        yield xs[start:start + batch_size], ys[start:start + batch_size]
