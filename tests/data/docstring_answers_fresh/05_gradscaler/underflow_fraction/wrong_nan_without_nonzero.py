# breaks: "a tensor without non-zero entries gives 0.0."
# how: a tensor division lost.sum() / nonzero.sum(): 0 / 0 gives nan when nothing is non-zero.
def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t != 0
    lost = nonzero & (t.to(dtype) == 0)
    return (lost.sum() / nonzero.sum()).item()
