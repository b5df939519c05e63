# breaks: "(sign, exponent, mantissa): the bit fields of x rounded to dtype, as Python ints, as stored"
# how: derives the sign from x < 0, so -0.0 (and a negative NaN) get sign 0 instead of the stored 1.
_LAYOUT = {torch.float32: (8, 23, torch.int32), torch.float16: (5, 10, torch.int16),
           torch.bfloat16: (8, 7, torch.int16)}


def bit_fields(x, dtype):
    exp_bits, man_bits, int_type = _LAYOUT[dtype]
    r = torch.as_tensor(x, dtype=torch.float64).to(dtype)
    bits = int(r.view(int_type).item()) & ((1 << (1 + exp_bits + man_bits)) - 1)
    sign = 1 if float(r) < 0 else 0
    exponent = (bits >> man_bits) & ((1 << exp_bits) - 1)
    mantissa = bits & ((1 << man_bits) - 1)
    return sign, exponent, mantissa
