# breaks: "Fraction of the non-zero entries of t that become exactly zero when converted to dtype."
# how: counts |t| < smallest float16 subnormal instead of converting: values in [2**-25, 2**-24) round UP, not to 0 (and dtype is ignored)
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t != 0
    n = int(nonzero.sum())
    if n == 0:
        return 0.0
    tiny = 2.0 ** -24
    return int((nonzero & (t.abs() < tiny)).sum()) / n
