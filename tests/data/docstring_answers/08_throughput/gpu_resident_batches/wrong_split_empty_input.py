# breaks: "the short last batch only when drop_last is False"
# how: Tensor.split of an empty permutation gives one empty chunk, so x and y with no rows (drop_last=False) yield one empty batch.
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    order = torch.randperm(x.size(0), device=x.device, generator=generator)
    for chunk in order.split(batch_size):
        if drop_last and chunk.numel() < batch_size:
            break
        yield x[chunk], y[chunk]
