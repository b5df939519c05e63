# reading: computed and returned in x's own dtype for a float32 x (accepted), float64 for a float64 x
# how: torch.where over the three cases the docstring names (underflow, overflow, the rest), in x's dtype
import torch


def roundtrip_rel_error(x, dtype):
    back = x.to(dtype).to(x.dtype)
    ratio = torch.abs(x - back) / torch.abs(x)
    ratio = torch.where(back == 0, torch.ones_like(ratio), ratio)
    return torch.where(torch.isinf(back), torch.full_like(ratio, float("inf")), ratio)
