# breaks: "Elementwise |x - x.to(dtype)| / |x| for a float32 or float64 tensor x without zeros, same shape."
# how: a Python loop over x.tolist() zipped with the rounded values: right for a 1-D x, fails for 2-D and more
import torch


def roundtrip_rel_error(x, dtype):
    exact = x.double().tolist()
    stored = x.to(dtype).double().tolist()
    return torch.tensor([abs(a - b) / abs(a) for a, b in zip(exact, stored, strict=True)], dtype=torch.float64)
