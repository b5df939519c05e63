# reading: a NaN entry is non-zero and never becomes zero; bool/int inputs are converted the same way
# how: count_nonzero before and after the conversion (already-zero entries stay zero, so the difference is the underflows)
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    before = int(torch.count_nonzero(t))
    if not before:
        return 0.0
    after = int(torch.count_nonzero(t.to(dtype)))
    return float(before - after) / float(before)
