# breaks: "Underflow to 0 gives 1, overflow to inf gives inf."
# how: rounds a clamped copy of x, then writes inf wherever |x| is above finfo(dtype).max: 65510 rounds to 65504 in
#      float16 (a tiny error), not to inf
import torch


def roundtrip_rel_error(x, dtype):
    limit = torch.finfo(dtype).max
    wide = x.double()
    stored = wide.clamp(-limit, limit).to(dtype).double()
    err = (wide - stored).abs() / wide.abs()
    return torch.where(wide.abs() > limit, torch.full_like(err, float("inf")), err)
