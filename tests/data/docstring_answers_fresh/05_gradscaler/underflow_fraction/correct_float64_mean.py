# reading: the mean of a 0/1 indicator over the non-zero entries, computed in float64.
# how: masked_select, then the indicator's float64 mean, read with float().
def underflow_fraction(t, dtype=torch.float16) -> float:
    kept = torch.masked_select(t, t.ne(0))
    if kept.numel() == 0:
        return 0.0
    became_zero = kept.to(dtype).eq(0)
    return float(became_zero.to(torch.float64).mean())
