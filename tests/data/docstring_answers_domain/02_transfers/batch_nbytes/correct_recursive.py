# reading: sample_shape may be any sequence of sizes; the count is batch_size times each side in turn
# how: recursion over the sides, itemsize read once; no loop, no library product
def _count(sides):
    if not sides:
        return 1
    return int(sides[0]) * _count(sides[1:])


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    return int(batch_size) * _count(tuple(sample_shape)) * dtype.itemsize
