# breaks: "Fraction of the non-zero entries of t that become exactly zero when converted to dtype."
# how: knows only the two 16-bit targets: any dtype that is not float16 is treated as bfloat16
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t[t != 0]
    if nonzero.numel() == 0:
        return 0.0
    low = nonzero.half() if dtype == torch.float16 else nonzero.bfloat16()
    return (low == 0).sum().item() / nonzero.numel()
