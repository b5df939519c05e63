# breaks: "nothing is allocated: the batch may be far bigger than any memory."
# how: builds an empty batch and reads its nbytes, which allocates the whole batch.
def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    return torch.empty((batch_size, *sample_shape), dtype=dtype).nbytes
