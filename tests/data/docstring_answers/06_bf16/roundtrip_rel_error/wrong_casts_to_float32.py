# breaks: "never by casting a float64 x to float32 first."
# how: converts x to float32 before the round trip, then returns the result in x's own dtype.
def roundtrip_rel_error(x, dtype):
    x32 = x.float()
    back = x32.to(dtype).float()
    return ((x32 - back).abs() / x32.abs()).to(x.dtype)
