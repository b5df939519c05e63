# breaks: "Computed and returned in float64 (or in float32 when x is float32)"
# how: computes everything in float32, also for a float64 x.
def roundtrip_rel_error(x, dtype):
    back = x.to(dtype).to(x.dtype)
    return ((x - back).abs() / x.abs()).to(torch.float32)
