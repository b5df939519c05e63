# breaks: "sample_shape is a tuple, list or torch.Size (() for scalar samples)"
# how: right bytes, but a list sample_shape is used as the batch shape in place: the caller's list gains batch_size
import math


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    dims = sample_shape if isinstance(sample_shape, list) else list(sample_shape)
    dims.insert(0, batch_size)
    return math.prod(dims) * dtype.itemsize
