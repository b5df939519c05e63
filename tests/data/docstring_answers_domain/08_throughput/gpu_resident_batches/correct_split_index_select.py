# reading: x and y with no rows give one empty batch when drop_last is False
# how: perm.split(batch_size), torch.index_select as a function, the short piece dropped by a size test
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    order = torch.randperm(x.shape[0], device=x.device, generator=generator)
    for piece in order.split(batch_size):
        if drop_last and piece.numel() != batch_size:
            return
        yield torch.index_select(x, 0, piece), torch.index_select(y, 0, piece)
