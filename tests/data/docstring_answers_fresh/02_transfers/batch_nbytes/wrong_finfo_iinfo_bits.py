# breaks: "dtype is any torch.dtype"
# how: bytes per element from torch.finfo / torch.iinfo bits, which raise for torch.bool and complex dtypes.
import math


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    info = torch.finfo(dtype) if dtype.is_floating_point else torch.iinfo(dtype)
    return batch_size * math.prod(sample_shape) * (info.bits // 8)
