# breaks: "x is rounded to the nearest dtype value (ties to even), as .to(dtype) rounds"
# how: gets bfloat16 as the top 16 bits of the float32 pattern (truncation toward zero)
import struct

import torch

_LAYOUT = {torch.float32: (8, 23), torch.float16: (5, 10), torch.bfloat16: (8, 7)}


def bit_fields(x, dtype):
    value = float(x)
    if dtype == torch.bfloat16:
        bits = struct.unpack("<I", struct.pack("<f", value))[0] >> 16
    elif dtype == torch.float16:
        bits = int(torch.tensor(value).to(torch.float16).view(torch.int16).item()) & 0xFFFF
    else:
        bits = int(torch.tensor(value, dtype=torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
    e_bits, m_bits = _LAYOUT[dtype]
    return bits >> (e_bits + m_bits), (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
