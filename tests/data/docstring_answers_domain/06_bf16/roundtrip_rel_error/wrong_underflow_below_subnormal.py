# breaks: "Underflow to 0 gives 1, overflow to inf gives inf."
# how: gives 1 to every |x| below the smallest subnormal (finfo.tiny * finfo.eps), though above half of it x rounds
#      up to that subnormal and does not underflow
import torch


def roundtrip_rel_error(x, dtype):
    info = torch.finfo(dtype)
    wide = x.double()
    err = (wide - x.to(dtype).double()).abs() / wide.abs()
    return torch.where(wide.abs() < info.tiny * info.eps, torch.ones_like(err), err)
