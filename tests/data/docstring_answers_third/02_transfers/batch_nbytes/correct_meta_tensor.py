# reading: a "meta" tensor has shape and dtype but no storage, so it allocates nothing; a huge batch is fine
# how: builds the batch on the meta device and reads nbytes as an int
import torch


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    ghost = torch.empty((batch_size, *tuple(sample_shape)), dtype=dtype, device="meta")
    return int(ghost.numel()) * dtype.itemsize
