# reading: always computed in float64 (a float32 x widens exactly), result float64 for both input dtypes
# how: 1 - rounded/x written as |x - r| / |x| through torch.sub/torch.div on float64 copies
import torch


def roundtrip_rel_error(x, dtype):
    exact = x.double()
    rounded = x.to(dtype).double()
    return torch.div(torch.sub(exact, rounded).abs(), exact.abs())
