# reading: the round trip goes back to x's own dtype (float64 or float32) before the subtraction.
# how: torch.sub, then in-place abs_ and div_ on the fresh result.
def roundtrip_rel_error(x, dtype):
    rounded = x.to(dtype).to(x.dtype)
    return torch.sub(x, rounded).abs_().div_(x.abs())
