# breaks: "never by casting a float64 x to float32 first."
# how: converts x to float32 before everything, so float64 inputs lose their own error.
def roundtrip_rel_error(x, dtype):
    x = x.float()
    back = x.to(dtype).float()
    return ((x - back).abs() / x.abs()).double()
