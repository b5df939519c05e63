# reading: the bytes per element are the bits in the dtype's name over 8 (bool is one byte)
# how: reads the first number in str(dtype) ("float8_e4m3fn" -> 8, "complex64" -> 64), reduce over the shape
import functools
import operator
import re


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    found = re.search(r"\d+", str(dtype))
    per_element = 1 if found is None else int(found.group()) // 8
    return functools.reduce(operator.mul, sample_shape, batch_size) * per_element
