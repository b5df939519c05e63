# breaks: "x: a Python float or a 0-d tensor of any floating dtype."
# how: reads a tensor's value through NumPy, which has no bfloat16 (nor 8-bit floats): such a tensor raises
import torch

from gpucourse.amp import LAYOUTS


def bit_fields(x, dtype):
    _, e, m = LAYOUTS[dtype]
    v = float(x.detach().cpu().numpy()) if isinstance(x, torch.Tensor) else float(x)
    value = torch.tensor(v, dtype=torch.float64).to(dtype)
    view = torch.int32 if dtype == torch.float32 else torch.int16
    pattern = int(value.view(view).item()) & ((1 << (1 + e + m)) - 1)
    return pattern >> (e + m), (pattern >> m) & ((1 << e) - 1), pattern & ((1 << m) - 1)
