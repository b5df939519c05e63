# breaks: "the short last batch only when drop_last is False"
# how: with drop_last=False yields n // batch_size + 1 batches, the last one empty when batch_size divides n.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    count = n // batch_size if drop_last else n // batch_size + 1
    for i in range(count):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        yield x[idx], y[idx]
