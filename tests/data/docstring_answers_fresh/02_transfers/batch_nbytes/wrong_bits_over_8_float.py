# breaks: "The result is exact for every size a tensor can have (up to 2**63 - 1 bytes; never rounded through a float)"
# how: converts bits to bytes with a true division (bits / 8), so the product becomes a float and int() rounds.
import math


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    bits = dtype.itemsize * 8
    return int(batch_size * math.prod(sample_shape) * bits / 8)
