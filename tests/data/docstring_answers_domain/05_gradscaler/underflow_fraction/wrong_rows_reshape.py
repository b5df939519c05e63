# breaks: "Any shape, any input dtype."
# how: views t as rows (t.shape[0] of them) to count per row: a () tensor has no first side, a (0,) one cannot be
#      reshaped to (0, -1)
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    rows = t.reshape(t.shape[0], -1)
    nonzero = rows != 0
    total = int(nonzero.sum())
    if total == 0:
        return 0.0
    lost = nonzero & (rows.to(dtype) == 0)
    return int(lost.sum()) / total
