# breaks: "entries already zero do not count"
# how: divides the lost non-zero entries by ALL entries, zeros included.
def underflow_fraction(t, dtype=torch.float16) -> float:
    if t.numel() == 0:
        return 0.0
    lost = (t != 0) & (t.to(dtype) == 0)
    return lost.sum().item() / t.numel()
