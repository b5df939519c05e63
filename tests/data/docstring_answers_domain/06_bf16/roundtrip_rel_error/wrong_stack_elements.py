# breaks: "Elementwise |x - x.to(dtype)| / |x| for a float32 or float64 tensor x without zeros, same shape."
# how: one element at a time, gathered with torch.stack: right for every shape with elements, raises for an empty x
import torch


def roundtrip_rel_error(x, dtype):
    flat = x.reshape(-1)
    errors = torch.stack([(flat[i].double() - flat[i].to(dtype).double()).abs() / flat[i].double().abs()
                          for i in range(flat.numel())])
    return errors.reshape(x.shape)
