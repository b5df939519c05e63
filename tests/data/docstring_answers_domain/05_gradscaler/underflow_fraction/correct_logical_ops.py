# reading: "any input dtype": compare and convert only (no abs, no NumPy), which torch has for every dtype
# how: torch.ne / torch.eq / logical_and on the flattened tensor, the fraction in float64 from .double()
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    flat = t.reshape(-1)
    kept = torch.ne(flat, 0)
    n = kept.sum().item()
    if n == 0:
        return 0.0
    flushed = torch.logical_and(kept, torch.eq(flat.to(dtype), 0))
    return flushed.double().sum().item() / n
