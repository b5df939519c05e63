# breaks: "Bytes of a batch of batch_size samples of shape sample_shape and dtype dtype, as an int."
# how: multiplies only the non-zero sides of sample_shape, so a zero-size sample such as (3, 0) counts as (3,)
import math


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    per_sample = math.prod(side for side in sample_shape if side)
    return batch_size * per_sample * dtype.itemsize
