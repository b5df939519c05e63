# breaks: "Negative values count too (they become -0.0)."
# how: takes the non-zero entries as t > 0, so negative entries are neither counted nor tested.
def underflow_fraction(t, dtype=torch.float16) -> float:
    positive = t > 0
    n = int(positive.sum())
    if n == 0:
        return 0.0
    return int((t.to(dtype) == 0)[positive].sum()) / n
