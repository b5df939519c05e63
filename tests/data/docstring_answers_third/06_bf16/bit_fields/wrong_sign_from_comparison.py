# breaks: "(sign, exponent, mantissa): the bit fields of x rounded to dtype, as Python ints, as stored"
# how: sign = int(value < 0), which is 0 for -0.0 (and for a negative value that rounds to -0.0)
import torch

_LAYOUT = {torch.float32: (8, 23, torch.int32), torch.float16: (5, 10, torch.int16), torch.bfloat16: (8, 7, torch.int16)}


def bit_fields(x, dtype):
    e_bits, m_bits, int_dtype = _LAYOUT[dtype]
    t = torch.as_tensor(x).to(dtype)
    bits = int(t.view(int_dtype).item()) & ((1 << (1 + e_bits + m_bits)) - 1)
    sign = int(t.item() < 0)
    return sign, (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
