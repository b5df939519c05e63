# reading: integer counts with torch.count_nonzero; 0.0 for an empty tensor too.
# how: two counts, Python division.
def underflow_fraction(t, dtype=torch.float16) -> float:
    nonzero = t != 0
    total = int(torch.count_nonzero(nonzero))
    if total == 0:
        return 0.0
    flushed = int(torch.count_nonzero(nonzero & (t.to(dtype) == 0)))
    return flushed / total
