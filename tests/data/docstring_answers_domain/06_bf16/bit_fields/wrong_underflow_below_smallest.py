# breaks: "x is rounded to the nearest dtype value (ties to even), as .to(dtype) rounds"
# how: stores every value below the smallest subnormal as 0, although one above half of it rounds up to it
import math

import torch

from gpucourse.amp import LAYOUTS


def bit_fields(x, dtype):
    _, e, m = LAYOUTS[dtype]
    bias = (1 << (e - 1)) - 1
    v = float(x)
    if abs(v) < 2.0 ** (1 - bias - m):
        v = math.copysign(0.0, v)
    source = x.dtype if isinstance(x, torch.Tensor) else torch.float64
    value = torch.tensor(v, dtype=source).to(dtype)
    view = torch.int32 if dtype == torch.float32 else torch.int16
    pattern = int(value.view(view).item()) & ((1 << (1 + e + m)) - 1)
    return pattern >> (e + m), (pattern >> m) & ((1 << e) - 1), pattern & ((1 << m) - 1)
