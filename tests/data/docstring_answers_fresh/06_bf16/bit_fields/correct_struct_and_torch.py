# reading: a float64 value is rounded directly to float32 / float16 (struct, like NumPy); bfloat16 through float32 (torch).
# how: struct 'f' and 'e' formats give the patterns; bfloat16 via torch's rounding and an int16 view.
import struct


def bit_fields(x, dtype):
    value = float(x)  # exact for every floating tensor dtype
    if dtype == torch.float32:
        (pattern,) = struct.unpack("<I", struct.pack("<f", value))
        widths = (8, 23)
    elif dtype == torch.float16:
        (pattern,) = struct.unpack("<H", struct.pack("<e", value))
        widths = (5, 10)
    else:
        pattern = int(torch.tensor(value, dtype=torch.float64).to(dtype).view(torch.int16).item()) & 0xFFFF
        widths = (8, 7)
    exp_bits, man_bits = widths
    return (int(pattern >> (exp_bits + man_bits)),
            int((pattern >> man_bits) & ((1 << exp_bits) - 1)),
            int(pattern & ((1 << man_bits) - 1)))
