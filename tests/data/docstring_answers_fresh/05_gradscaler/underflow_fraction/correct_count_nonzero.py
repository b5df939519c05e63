# reading: NaN and inf entries are non-zero and never become zero, so they count in the denominator only.
# how: torch.count_nonzero on the input and on the converted non-zero entries; Python ints for the division.
def underflow_fraction(t, dtype=torch.float16) -> float:
    values = t[t != 0]
    total = values.numel()
    if total == 0:
        return 0.0
    survivors = int(torch.count_nonzero(values.to(dtype)))
    return float(total - survivors) / total
