# breaks: "x is rounded to the nearest dtype value (ties to even), as .to(dtype) rounds"
# how: rounds to bfloat16 by hand from float32's bits, adding half of the dropped part (ties go up, not to even)
import struct

import torch

from gpucourse.amp import LAYOUTS


def bit_fields(x, dtype):
    _, e, m = LAYOUTS[dtype]
    if dtype == torch.bfloat16:
        (wide,) = struct.unpack(">I", struct.pack(">f", float(torch.tensor(float(x)).float())))
        pattern = ((wide + 0x8000) >> 16) & 0xFFFF
    else:
        value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
        view = torch.int32 if dtype == torch.float32 else torch.int16
        pattern = int(value.view(view).item()) & ((1 << (1 + e + m)) - 1)
    return pattern >> (e + m), (pattern >> m) & ((1 << e) - 1), pattern & ((1 << m) - 1)
