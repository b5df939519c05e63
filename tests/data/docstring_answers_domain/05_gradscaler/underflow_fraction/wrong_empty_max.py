# breaks: "a tensor without non-zero entries gives 0.0."
# how: detects "no non-zero entries" with a max over the mask, which raises for a zero-size tensor
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    mask = t != 0
    if not bool(mask.max()):
        return 0.0
    lost = mask & (t.to(dtype) == 0)
    return lost.sum().item() / mask.sum().item()
