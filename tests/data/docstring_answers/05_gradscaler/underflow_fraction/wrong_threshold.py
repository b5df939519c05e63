# breaks: "Fraction of the non-zero entries of t that become exactly zero when converted to dtype."
# how: compares |t| with float16's smallest subnormal instead of converting: wrong near the boundary (values just below it round up) and for any other dtype.
FP16_SMALLEST_SUBNORMAL_ = 2.0 ** -24


def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t != 0
    n = int(nonzero.sum())
    if n == 0:
        return 0.0
    tiny = nonzero & (t.abs() < FP16_SMALLEST_SUBNORMAL_)
    return int(tiny.sum()) / n
