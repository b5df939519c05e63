# reading: dtype.itemsize (a Python int) gives the element size; Python ints make it exact at any size.
# how: functools.reduce with operator.mul over (batch_size, *sample_shape, itemsize).
import functools
import operator


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    factors = (int(batch_size), *(int(d) for d in sample_shape), dtype.itemsize)
    return functools.reduce(operator.mul, factors, 1)
