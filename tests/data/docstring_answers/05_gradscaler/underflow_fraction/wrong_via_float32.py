# breaks: "Any shape, any input dtype."
# how: converts t to float32 first; float64 entries below float32's range are dropped from the count before the test.
def underflow_fraction(t, dtype=torch.float16) -> float:
    t = t.float()
    nonzero = t != 0
    n = nonzero.sum().item()
    if n == 0:
        return 0.0
    return ((t.to(dtype) == 0) & nonzero).sum().item() / n
