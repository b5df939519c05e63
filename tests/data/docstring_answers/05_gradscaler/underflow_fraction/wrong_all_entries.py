# breaks: "Fraction of the non-zero entries of t that become exactly zero when converted to dtype."
# how: divides by t.numel() (zeros included in the denominator).
def underflow_fraction(t, dtype=torch.float16) -> float:
    if t.numel() == 0:
        return 0.0
    lost = (t != 0) & (t.to(dtype) == 0)
    return lost.sum().item() / t.numel()
