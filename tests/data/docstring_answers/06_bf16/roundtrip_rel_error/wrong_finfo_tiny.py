# breaks: "Underflow to 0 gives 1"
# how: marks everything below the dtype's smallest normal (finfo.tiny) as underflow, though subnormals survive.
def roundtrip_rel_error(x, dtype):
    back = x.to(dtype).to(x.dtype)
    err = (x - back).abs() / x.abs()
    return torch.where(x.abs() < torch.finfo(dtype).tiny, torch.ones_like(err), err)
