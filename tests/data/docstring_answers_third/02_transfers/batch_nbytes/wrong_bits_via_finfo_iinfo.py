# breaks: "dtype is any torch.dtype"
# how: element size from finfo/iinfo bits, which raises for torch.bool and the complex dtypes
import math

import torch


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    info = torch.finfo(dtype) if dtype.is_floating_point else torch.iinfo(dtype)
    return batch_size * math.prod(sample_shape) * (info.bits // 8)
