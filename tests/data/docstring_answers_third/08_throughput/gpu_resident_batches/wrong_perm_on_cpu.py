# breaks: "drawn on that device (never on the CPU and then moved)"
# how: draws the permutation on the CPU (generator default) and moves it to x.device
import torch


def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = x.shape[0]
    perm = torch.randperm(n, generator=generator).to(x.device)
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            return
        yield x[idx], y[idx]
