# breaks: "as stored (biased exponent, mantissa without the implicit 1)"
# how: computes the fields arithmetically with math.frexp, which is right for normal numbers but wrong for zero and subnormals (stored exponent 0).
import math

_LAYOUT = {torch.float32: (8, 23), torch.float16: (5, 10), torch.bfloat16: (8, 7)}


def bit_fields(x, dtype):
    exp_bits, man_bits = _LAYOUT[dtype]
    value = float(torch.as_tensor(x).to(dtype))
    sign = 1 if math.copysign(1.0, value) < 0 else 0
    m, e = math.frexp(abs(value))              # value = m * 2**e, 0.5 <= m < 1
    bias = (1 << (exp_bits - 1)) - 1
    exponent = e - 1 + bias
    mantissa = int(round((m * 2 - 1) * (1 << man_bits)))
    return sign, exponent, mantissa
