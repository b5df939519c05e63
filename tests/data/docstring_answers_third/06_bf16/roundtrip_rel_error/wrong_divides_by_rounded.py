# breaks: "Elementwise |x - x.to(dtype)| / |x| for a float32 or float64 tensor x without zeros, same shape." (so "Underflow to 0 gives 1" fails too)
# how: divides by |x.to(dtype)| (the rounded value): slightly off everywhere, inf on underflow, nan on overflow
import torch


def roundtrip_rel_error(x, dtype):
    work = torch.float64
    rounded = x.to(dtype).to(work)
    return (x.to(work) - rounded).abs() / rounded.abs()
