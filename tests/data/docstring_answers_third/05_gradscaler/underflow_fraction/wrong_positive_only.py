# breaks: "Negative values count too (they become -0.0)."
# how: treats "non-zero" as t > 0, so negative entries are neither counted nor in the denominator
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    positive = t > 0
    total = int(positive.sum())
    if total == 0:
        return 0.0
    flushed = positive & (t.to(dtype) == 0)
    return int(flushed.sum()) / total
