# reading: the number of full batches is computed first; the tail is handled after the loop.
# how: divmod gives full batches and the remainder; fancy indexing x[idx]; the tail only when drop_last is False.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = int(x.shape[0])
    shuffled = torch.randperm(n, device=x.device, generator=generator)
    full, rest = divmod(n, batch_size)
    for k in range(full):
        idx = shuffled[k * batch_size:(k + 1) * batch_size]
        yield x[idx], y[idx]
    if rest and not drop_last:
        idx = shuffled[full * batch_size:]
        yield x[idx], y[idx]
