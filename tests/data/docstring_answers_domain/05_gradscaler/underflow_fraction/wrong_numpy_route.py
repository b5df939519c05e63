# breaks: "Any shape, any input dtype."
# how: goes through NumPy to pick the non-zero values, which has no bfloat16: a bfloat16 input raises
import numpy as np
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    values = t.detach().cpu().numpy().reshape(-1)
    nonzero = values[values != 0]
    if nonzero.size == 0:
        return 0.0
    low = torch.from_numpy(np.ascontiguousarray(nonzero)).to(dtype)
    return float((low == 0).sum()) / nonzero.size
