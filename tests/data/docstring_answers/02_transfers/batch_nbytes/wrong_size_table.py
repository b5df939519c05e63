# breaks: "dtype is any torch.dtype"
# how: a hand-written table of the course's dtypes; int16, complex64, float8 ... raise KeyError.
import math

_SIZES = {torch.float64: 8, torch.float32: 4, torch.float16: 2, torch.bfloat16: 2,
          torch.int64: 8, torch.int32: 4, torch.uint8: 1, torch.bool: 1}


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    return batch_size * math.prod(sample_shape) * _SIZES[dtype]
