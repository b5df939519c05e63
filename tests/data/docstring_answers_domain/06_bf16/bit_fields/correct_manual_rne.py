# reading: x rounded through float32 first (allowed for a float64); bfloat16 rounded by hand, ties to even
# how: float32's bits from struct; bfloat16 as the top half of them, rounded to nearest even by hand (inf and the
#      carry into the exponent come out of the addition); float16 through torch
import struct

import torch

from gpucourse.amp import LAYOUTS


def _float32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def bit_fields(x, dtype):
    _, e, m = LAYOUTS[dtype]
    wide = x.detach().float() if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=torch.float64).float()
    if dtype == torch.float32:
        bits = _float32_bits(wide.item())
    elif dtype == torch.bfloat16:
        f = _float32_bits(wide.item())
        bits = (f + 0x7FFF + ((f >> 16) & 1)) >> 16
    else:
        bits = int(wide.to(torch.float16).view(torch.int16).item()) % 65536
    return bits >> (e + m), (bits >> m) % (1 << e), bits % (1 << m)
