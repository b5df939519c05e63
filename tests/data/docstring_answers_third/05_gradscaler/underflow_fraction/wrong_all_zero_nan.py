# breaks: "a tensor without non-zero entries gives 0.0."
# how: divides two tensor counts with no guard: 0 / 0 gives nan
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t != 0
    became_zero = nonzero & (t.to(dtype) == 0)
    return (became_zero.sum() / nonzero.sum()).item()
