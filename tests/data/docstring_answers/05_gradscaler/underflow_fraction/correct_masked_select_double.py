# reading: the mean of a float64 indicator over the non-zero entries; flattening is fine for any shape.
# how: masked_select, then a float64 mean and float().
def underflow_fraction(t, dtype=torch.float16) -> float:
    flat = t.reshape(-1)
    values = torch.masked_select(flat, flat.ne(0))
    if values.numel() == 0:
        return 0.0
    became_zero = values.to(dtype).eq(0)
    return float(became_zero.to(torch.float64).mean())
