# breaks: "The result is exact however large (never rounded through a float)"
# how: multiplies in floating point (NumPy-style prod with a float start), then int() at the end.
import math


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    elements = math.prod(sample_shape, start=float(batch_size))
    return int(elements * dtype.itemsize)
