# reading: a list shape is accepted by turning it into a tuple; negative sizes are not considered.
# how: torch.Size(...).numel() (an exact Python int) times dtype.itemsize.
def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    return torch.Size((int(batch_size), *sample_shape)).numel() * dtype.itemsize
