# breaks: "x is rounded to the nearest dtype value (ties to even), as .to(dtype) rounds"
# how: sends every value above finfo(dtype).max to inf before rounding, so 65510 becomes inf in float16 where
#      .to(dtype) rounds it to 65504
import math

import torch

from gpucourse.amp import LAYOUTS


def bit_fields(x, dtype):
    _, e, m = LAYOUTS[dtype]
    v = float(x)
    if math.isfinite(v) and abs(v) > torch.finfo(dtype).max:
        v = math.copysign(math.inf, v)
    source = x.dtype if isinstance(x, torch.Tensor) else torch.float64
    value = torch.tensor(v, dtype=source).to(dtype)
    view = torch.int32 if dtype == torch.float32 else torch.int16
    pattern = int(value.view(view).item()) & ((1 << (1 + e + m)) - 1)
    return pattern >> (e + m), (pattern >> m) & ((1 << e) - 1), pattern & ((1 << m) - 1)
