# breaks: "A Python float in [0, 1]"
# how: returns the 0-d tensor of the division.
def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t != 0
    if not nonzero.any():
        return 0.0
    return ((t.to(dtype) == 0) & nonzero).sum() / nonzero.sum()
