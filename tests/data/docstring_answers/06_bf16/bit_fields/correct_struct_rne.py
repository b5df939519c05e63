# reading: float16 rounded directly from float64 by struct's "e"; bfloat16 rounded from the float32 pattern (ties to even by integer arithmetic); overflow gives inf.
# how: struct packing and integer bit arithmetic, no tensor views.
import math
import struct


def _f32_bits(value):
    try:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        return (0x80000000 if value < 0 else 0) | 0x7F800000


def _f16_bits(value):
    try:
        return struct.unpack("<H", struct.pack("<e", value))[0]
    except OverflowError:
        return (0x8000 if value < 0 else 0) | 0x7C00


def _bf16_bits(value):
    bits = _f32_bits(value)
    if math.isnan(value):
        return (bits >> 16) | 0x40
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def bit_fields(x, dtype):
    value = float(x)
    if dtype == torch.float32:
        bits, e, m = _f32_bits(value), 8, 23
    elif dtype == torch.float16:
        bits, e, m = _f16_bits(value), 5, 10
    elif dtype == torch.bfloat16:
        bits, e, m = _bf16_bits(value), 8, 7
    else:
        raise ValueError(f"unsupported dtype {dtype}")
    return bits >> (e + m), (bits >> m) & ((1 << e) - 1), bits & ((1 << m) - 1)
