# reading: x and y with no rows give no batch, whatever drop_last is
# how: the number of batches computed first (ceil or floor division), x[idx] indexing in a range over batch numbers
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    rows = len(y)
    shuffled = torch.randperm(rows, device=x.device, generator=generator)
    count = rows // batch_size if drop_last else -(-rows // batch_size)
    for number in range(count):
        chosen = shuffled[number * batch_size:(number + 1) * batch_size]
        yield x[chosen], y[chosen]
