# reading: the element size may come from a 0-d tensor on the meta device (which allocates nothing).
# how: functools.reduce over the dims with operator.mul, element_size() of a meta scalar.
import functools
import operator


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    per_element = torch.empty((), dtype=dtype, device="meta").element_size()
    return functools.reduce(operator.mul, (int(d) for d in sample_shape), int(batch_size) * per_element)
