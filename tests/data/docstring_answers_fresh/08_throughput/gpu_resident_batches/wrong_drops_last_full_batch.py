# breaks: "consecutive slices of batch_size of it index both x and y; the short last batch only when drop_last is False"
# how: range(0, n - batch_size, batch_size) for drop_last: right when n is not a multiple of batch_size,
#      one full batch short when it is (n=8, batch_size=4 gives one batch).
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = x.size(0)
    perm = torch.randperm(n, device=x.device, generator=generator)
    end = n - batch_size if drop_last else n
    for start in range(0, end, batch_size):
        idx = perm[start:start + batch_size]
        yield x[idx], y[idx]
