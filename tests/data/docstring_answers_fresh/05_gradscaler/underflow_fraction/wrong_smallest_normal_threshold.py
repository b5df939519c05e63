# breaks: "Fraction of the non-zero entries of t that become exactly zero when converted to dtype."
# how: counts entries below the smallest NORMAL number (torch.finfo(dtype).tiny), so subnormals, which survive, count as lost.
def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t != 0
    n = int(nonzero.sum())
    if n == 0:
        return 0.0
    lost = nonzero & (t.abs() < torch.finfo(dtype).tiny)
    return int(lost.sum()) / n
