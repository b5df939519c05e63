# breaks: "overflow to inf gives inf."
# how: tidies the result with torch.nan_to_num, which turns inf into the largest finite float64
import torch


def roundtrip_rel_error(x, dtype):
    xd = x.to(torch.float64)
    err = (xd - x.to(dtype).to(torch.float64)).abs() / xd.abs()
    return torch.nan_to_num(err)
