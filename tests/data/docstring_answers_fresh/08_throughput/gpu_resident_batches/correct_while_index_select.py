# reading: x and y without rows give no batch at all (with drop_last False too).
# how: a while loop over positions, index_select for both tensors, one randperm on x.device.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    count = x.shape[0]
    order = torch.randperm(count, device=x.device, generator=generator)
    pos = 0
    while pos < count:
        idx = order[pos:pos + batch_size]
        if idx.numel() < batch_size and drop_last:
            break
        yield x.index_select(0, idx), y.index_select(0, idx)
        pos += batch_size
