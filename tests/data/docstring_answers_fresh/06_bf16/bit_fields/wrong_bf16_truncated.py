# breaks: "x is rounded to the nearest dtype value (ties to even), as .to(dtype) rounds"
# how: bfloat16 as the top 16 bits of the float32 pattern (truncation); exact for -1.5, wrong when bits are dropped.
import struct


def bit_fields(x, dtype):
    (bits32,) = struct.unpack(">I", struct.pack(">f", float(x)))
    if dtype == torch.float32:
        bits, e_bits, m_bits = bits32, 8, 23
    elif dtype == torch.bfloat16:
        bits, e_bits, m_bits = bits32 >> 16, 8, 7
    else:
        (bits,) = struct.unpack(">H", struct.pack(">e", float(x)))
        e_bits, m_bits = 5, 10
    return (bits >> (e_bits + m_bits)) & 1, (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
