# breaks: "Each batch is sliced only when it is asked for (yield, no list made up front, no copy of x or y)"
# how: shuffles all of x and y once (x[perm] is a full copy), then yields views of the copies
import torch


def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = x.shape[0]
    perm = torch.randperm(n, device=x.device, generator=generator)
    xs, ys = x[perm], y[perm]
    for start in range(0, n, batch_size):
        if drop_last and start + batch_size > n:
            break
        yield xs[start:start + batch_size], ys[start:start + batch_size]
