# breaks: "dtype is any torch.dtype"
# how: a table of the dtypes the course uses, 4 bytes for others: uint16/32/64, 8-bit floats, complex128 miscount
import torch

_SIZES = {torch.float64: 8, torch.float32: 4, torch.float16: 2, torch.bfloat16: 2, torch.complex64: 8,
          torch.int64: 8, torch.int32: 4, torch.int16: 2, torch.int8: 1, torch.uint8: 1, torch.bool: 1}


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    count = batch_size
    for side in sample_shape:
        count *= side
    return count * _SIZES.get(dtype, 4)
