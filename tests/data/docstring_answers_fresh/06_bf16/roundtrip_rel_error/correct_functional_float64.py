# reading: always float64, whatever x's dtype.
# how: torch.sub / torch.abs / torch.div on float64 copies.
def roundtrip_rel_error(x, dtype):
    exact = x.to(torch.float64)
    stored = x.to(dtype).to(torch.float64)
    return torch.div(torch.abs(torch.sub(exact, stored)), torch.abs(exact))
