# breaks: "x is rounded to the nearest dtype value (ties to even), as .to(dtype) rounds"
# how: gets bfloat16 as the top 16 bits of the float32 pattern, which truncates instead of rounding.
import struct


def bit_fields(x, dtype):
    value = float(x)
    if dtype == torch.bfloat16:
        bits = struct.unpack(">I", struct.pack(">f", value))[0] >> 16
        return bits >> 15, (bits >> 7) & 0xFF, bits & 0x7F
    if dtype == torch.float16:
        bits = struct.unpack(">H", struct.pack(">e", value))[0]
        return bits >> 15, (bits >> 10) & 0x1F, bits & 0x3FF
    bits = struct.unpack(">I", struct.pack(">f", value))[0]
    return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
