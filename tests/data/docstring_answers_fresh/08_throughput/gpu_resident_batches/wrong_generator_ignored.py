# breaks: "One permutation torch.randperm(n, device=x.device, generator=generator) per call"
# how: the generator argument is not handed on to randperm, so the same generator state does not give the same batches.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    order = torch.randperm(n, device=x.device)
    stop = n - n % batch_size if drop_last else n
    for start in range(0, stop, batch_size):
        idx = order[start:start + batch_size]
        yield x.index_select(0, idx), y.index_select(0, idx)
