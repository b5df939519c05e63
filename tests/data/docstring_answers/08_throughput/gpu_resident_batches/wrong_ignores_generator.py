# breaks: "One permutation torch.randperm(n, device=x.device, generator=generator) per call"
# how: forgets to pass generator, so a seeded generator does not make the order reproducible.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device)
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            return
        yield x[idx], y[idx]
