# breaks: "Fraction of the non-zero entries of t that become exactly zero when converted to dtype."
# how: counts entries that become inf (beyond float16's 65504) as lost too, not only those that become zero
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t[t != 0]
    if nonzero.numel() == 0:
        return 0.0
    low = nonzero.to(dtype)
    lost = (low == 0) | torch.isinf(low)
    return lost.sum().item() / nonzero.numel()
