# breaks: "sample_shape is a tuple, list or torch.Size (() for scalar samples)"
# how: treats an empty sample_shape as "no data" and returns 0 instead of batch_size * itemsize.
def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    if not sample_shape:
        return 0
    n = batch_size
    for d in sample_shape:
        n *= d
    return n * dtype.itemsize
