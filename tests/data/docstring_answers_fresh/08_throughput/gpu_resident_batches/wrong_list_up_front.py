# breaks: "Each batch is sliced only when it is asked for (yield, no list made up front, no copy of x or y)"
# how: slices every batch into a list first, then yields from it (still a generator function, but all batches exist at once).
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    perm = torch.randperm(len(x), device=x.device, generator=generator)
    chunks = list(perm.split(batch_size))
    if drop_last and chunks and len(chunks[-1]) < batch_size:
        chunks.pop()
    batches = [(x[idx], y[idx]) for idx in chunks]
    yield from batches
