# breaks: "(sign, exponent, mantissa): the bit fields of x rounded to dtype, as Python ints"
# how: returns 0-d integer tensors (no .item()).
_LAYOUT = {torch.float32: (8, 23, torch.int32), torch.float16: (5, 10, torch.int16),
           torch.bfloat16: (8, 7, torch.int16)}


def bit_fields(x, dtype):
    exp_bits, man_bits, int_type = _LAYOUT[dtype]
    bits = torch.as_tensor(x).to(dtype).view(int_type).to(torch.int64) & ((1 << (1 + exp_bits + man_bits)) - 1)
    return bits >> (exp_bits + man_bits), (bits >> man_bits) & ((1 << exp_bits) - 1), bits & ((1 << man_bits) - 1)
