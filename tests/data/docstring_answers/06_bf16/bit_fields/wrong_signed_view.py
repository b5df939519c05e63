# breaks: "(sign, exponent, mantissa): the bit fields of x rounded to dtype, as Python ints, as stored"
# how: shifts the signed int16/int32 view without masking, so a negative value's sign comes out as -1.
_LAYOUT = {torch.float32: (8, 23, torch.int32), torch.float16: (5, 10, torch.int16),
           torch.bfloat16: (8, 7, torch.int16)}


def bit_fields(x, dtype):
    exp_bits, man_bits, int_type = _LAYOUT[dtype]
    bits = int(torch.as_tensor(x).to(dtype).view(int_type).item())
    sign = bits >> (exp_bits + man_bits)
    exponent = (bits >> man_bits) & ((1 << exp_bits) - 1)
    mantissa = bits & ((1 << man_bits) - 1)
    return sign, exponent, mantissa
