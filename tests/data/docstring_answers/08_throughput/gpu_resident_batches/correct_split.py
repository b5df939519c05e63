# reading: perm.split(batch_size) gives views of the permutation (not of x or y); each batch is indexed when reached;
#   empty x and y give no batch at all (split of an empty tensor returns one empty chunk, skipped here).
# how: Tensor.split and a break on the short tail.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    order = torch.randperm(x.size(0), device=x.device, generator=generator)
    for chunk in order.split(batch_size):
        if chunk.numel() == 0 or (drop_last and chunk.numel() < batch_size):
            break
        yield x[chunk], y[chunk]
