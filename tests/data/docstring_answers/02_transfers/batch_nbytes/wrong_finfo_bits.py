# breaks: "dtype is any torch.dtype"
# how: takes the element size from torch.finfo(dtype).bits, which exists only for floating dtypes (uint8, int64, bool fail).
import math


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    return batch_size * math.prod(sample_shape) * (torch.finfo(dtype).bits // 8)
