# reading: the meta-device answer; exact up to 2**63 bytes (sizes beyond that are not reachable in real use).
# how: an empty meta tensor of the batch's full shape and its nbytes.
def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    batch = torch.empty((batch_size, *sample_shape), dtype=dtype, device="meta")
    return int(batch.nbytes)
