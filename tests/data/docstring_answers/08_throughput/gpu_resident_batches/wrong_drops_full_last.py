# breaks: "the short last batch only when drop_last is False"
# how: range(0, n - batch_size, batch_size) with drop_last also drops the last full batch when batch_size divides n.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    end = n - batch_size if drop_last else n
    for start in range(0, end, batch_size):
        idx = perm[start:start + batch_size]
        yield x[idx], y[idx]
