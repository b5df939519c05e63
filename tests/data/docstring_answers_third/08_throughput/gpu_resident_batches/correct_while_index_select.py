# reading: x and y with no rows give no batch, whatever drop_last is
# how: while loop over offsets; index_select per batch; the last-batch rule written as a count of full batches
import torch


def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    total = len(x)
    order = torch.randperm(total, device=x.device, generator=generator)
    full, rest = divmod(total, batch_size)
    limit = full * batch_size if (drop_last or rest == 0) else total
    offset = 0
    while offset < limit:
        chosen = order[offset:offset + batch_size]
        yield x.index_select(0, chosen), y.index_select(0, chosen)
        offset += batch_size
