# reading: a float64 value is rounded through torch's .to(dtype); the stored bits read as bytes
# how: views the rounded value as uint8 bytes and joins them with int.from_bytes in the machine's byte order;
#      the fields by divmod, no masks
import sys

import torch

from gpucourse.amp import LAYOUTS


def bit_fields(x, dtype):
    sign_bits, exp_bits, man_bits = LAYOUTS[dtype]
    if isinstance(x, torch.Tensor):
        stored = x.detach().reshape(1).to(dtype)
    else:
        stored = torch.tensor([x], dtype=torch.float64).to(dtype)
    bits = int.from_bytes(bytes(stored.view(torch.uint8).tolist()), sys.byteorder)
    rest, mantissa = divmod(bits, 2 ** man_bits)
    sign, exponent = divmod(rest, 2 ** exp_bits)
    return sign, exponent, mantissa
