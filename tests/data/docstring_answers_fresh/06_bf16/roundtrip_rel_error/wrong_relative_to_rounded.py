# breaks: "Elementwise |x - x.to(dtype)| / |x|"
# how: divides by the ROUNDED value |x.to(dtype)| ("the value you read back"): underflow gives inf, not 1.
def roundtrip_rel_error(x, dtype):
    back = x.to(dtype).to(torch.float64)
    return (x.to(torch.float64) - back).abs() / back.abs()
