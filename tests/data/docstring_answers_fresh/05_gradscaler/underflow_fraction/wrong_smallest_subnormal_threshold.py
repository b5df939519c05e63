# breaks: "Fraction of the non-zero entries of t that become exactly zero when converted to dtype."
# how: compares with the smallest subnormal instead of converting: a value just under it rounds UP to it, yet counts as lost.
def underflow_fraction(t, dtype=torch.float16) -> float:
    smallest = torch.finfo(dtype).smallest_normal * torch.finfo(dtype).eps  # the smallest subnormal
    nonzero = t != 0
    n = int(nonzero.sum())
    if n == 0:
        return 0.0
    return int((nonzero & (t.abs() < smallest)).sum()) / n
