# breaks: "One permutation torch.randperm(n, device=x.device, generator=generator) per call"
# how: without a generator it makes one seeded with 0 (reproducible by default), so every call draws the same order
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    if generator is None and x.device.type != "meta":
        generator = torch.Generator(device=x.device).manual_seed(0)
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        yield x[idx], y[idx]
