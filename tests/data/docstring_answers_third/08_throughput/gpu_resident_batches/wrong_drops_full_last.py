# breaks: "consecutive slices of batch_size of it index both x and y; the short last batch only when drop_last is False"
# how: with drop_last, stops at n - batch_size (exclusive), losing the last batch even when it is full
import torch


def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = x.shape[0]
    perm = torch.randperm(n, device=x.device, generator=generator)
    stop = n - batch_size if drop_last else n
    for start in range(0, stop, batch_size):
        idx = perm[start:start + batch_size]
        yield x[idx], y[idx]
