# breaks: "Computed and returned in float64 (or in float32 when x is float32)"
# how: returns float64 for a float32 x too ("for precision").
def roundtrip_rel_error(x, dtype):
    back = x.to(dtype).to(x.dtype)
    return ((x - back).abs() / x.abs()).to(torch.float64)
