# breaks: "Underflow to 0 gives 1, overflow to inf gives inf."
# how: divides by the rounded value |x.to(dtype)|, so an underflow gives inf and an overflow gives nan.
def roundtrip_rel_error(x, dtype):
    back = x.to(dtype).to(x.dtype)
    return (x - back).abs() / back.abs()
