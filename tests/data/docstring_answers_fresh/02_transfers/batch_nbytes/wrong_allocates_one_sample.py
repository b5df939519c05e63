# breaks: "nothing is allocated: the batch may be far bigger than any memory."
# how: allocates ONE sample to read its nbytes ("only one, not the batch"): a huge sample shape still fails.
def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    one = torch.empty(tuple(sample_shape), dtype=dtype)
    return batch_size * one.nbytes
