# breaks: "as an int."
# how: np.prod of the sample shape: numpy's product of () is the float 1.0, so scalar samples give a float
import numpy as np


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    return batch_size * np.prod(tuple(sample_shape)) * dtype.itemsize
