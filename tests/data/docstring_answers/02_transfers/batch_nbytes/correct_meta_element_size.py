# reading: a 0-d tensor on the meta device allocates nothing; only its element_size() is used, the product stays a Python int.
# how: element size from a meta scalar, numel from torch.Size arithmetic kept in Python ints.
def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    element = torch.empty((), dtype=dtype, device="meta").element_size()
    total = batch_size
    for dim in tuple(sample_shape):
        total = total * dim
    return total * element
