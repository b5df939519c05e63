# breaks: "nothing is allocated: the batch may be far bigger than any memory."
# how: allocates one real sample to read its nbytes, which fails (or swaps) for a huge sample_shape
import torch


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    one = torch.empty(tuple(sample_shape), dtype=dtype)
    return int(batch_size) * one.nbytes
