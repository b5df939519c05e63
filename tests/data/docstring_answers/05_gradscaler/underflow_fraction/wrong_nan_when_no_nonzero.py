# breaks: "a tensor without non-zero entries gives 0.0."
# how: a plain mean over the non-zero entries, which is nan when there are none.
def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t[t != 0]
    return (nonzero.to(dtype) == 0).float().mean().item()
