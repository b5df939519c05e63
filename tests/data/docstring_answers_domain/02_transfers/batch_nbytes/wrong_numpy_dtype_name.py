# breaks: "dtype is any torch.dtype"
# how: the bytes per element through NumPy's dtype of the same name, which has no bfloat16 nor 8-bit floats
import math

import numpy as np


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    name = str(dtype).removeprefix("torch.")
    return batch_size * math.prod(sample_shape) * np.dtype(name).itemsize
