# breaks: "(sign, exponent, mantissa): the bit fields of x rounded to dtype, as Python ints, as stored"
# how: the sign is taken from value < 0, so -0.0 (and a negative value that underflows to -0.0) gets sign 0.
_LAYOUT = {torch.float32: (8, 23, torch.int32, 0xFFFFFFFF),
           torch.float16: (5, 10, torch.int16, 0xFFFF),
           torch.bfloat16: (8, 7, torch.int16, 0xFFFF)}


def bit_fields(x, dtype):
    e_bits, m_bits, int_type, mask = _LAYOUT[dtype]
    value = torch.as_tensor(x).to(dtype)
    bits = int(value.view(int_type).item()) & mask
    sign = 1 if value.item() < 0 else 0
    return sign, (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
