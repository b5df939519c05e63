# breaks: "Any shape, any input dtype."
# how: takes the non-zero entries as abs(t) > 0, and torch has no abs for bool tensors: a bool input raises
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    mask = t.abs() > 0
    n = int(mask.sum())
    if n == 0:
        return 0.0
    return int((mask & (t.to(dtype) == 0)).sum()) / n
