# breaks: "One permutation torch.randperm(n, device=x.device, generator=generator) per call, drawn on that device (never on the CPU and then moved)"
# how: draws the permutation on the CPU (where the generator usually lives) and moves it.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = x.shape[0]
    perm = torch.randperm(n, generator=generator).to(x.device)
    stop = n - n % batch_size if drop_last else n
    for start in range(0, stop, batch_size):
        idx = perm[start:start + batch_size]
        yield x[idx], y[idx]
