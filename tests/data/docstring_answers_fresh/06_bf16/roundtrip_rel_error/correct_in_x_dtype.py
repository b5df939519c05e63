# reading: computed and returned in x's own dtype (float32 for a float32 x is accepted; float64 stays float64).
# how: |(x - back) / x| in x.dtype, the round trip read back into x.dtype.
def roundtrip_rel_error(x, dtype):
    back = x.to(dtype).to(x.dtype)
    return ((x - back) / x).abs()
