# breaks: "A value beyond dtype's range is stored as inf (or -inf), as .to(dtype) stores it."
# how: packs float16 with struct's "e" format, which raises OverflowError instead of giving inf
import struct

import torch


def bit_fields(x, dtype):
    value = float(x)
    if dtype == torch.float16:
        (bits,) = struct.unpack("<H", struct.pack("<e", value))
        return bits >> 15, (bits >> 10) & 0x1F, bits & 0x3FF
    if dtype == torch.float32:
        (bits,) = struct.unpack("<I", struct.pack("<f", value))
        return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    bits = int(torch.tensor(value).to(torch.bfloat16).view(torch.int16).item()) & 0xFFFF
    return bits >> 15, (bits >> 7) & 0xFF, bits & 0x7F
