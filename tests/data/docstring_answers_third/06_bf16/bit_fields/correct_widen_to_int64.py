# reading: a float64 tensor is rounded through float32 first (allowed); fields read from the stored bit pattern
# how: reinterprets the rounded value as a same-width int, widens to int64 and masks; one table of widths
import torch

_WIDTHS = {torch.float32: (torch.int32, 8, 23), torch.float16: (torch.int16, 5, 10),
           torch.bfloat16: (torch.int16, 8, 7)}


def bit_fields(x, dtype):
    as_int, exp_w, man_w = _WIDTHS[dtype]
    src = x.detach().reshape(()) if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=torch.float64)
    if src.dtype == torch.float64:
        src = src.to(torch.float32)
    stored = src.to(dtype).reshape(1).view(as_int).to(torch.int64).item()
    total = 1 + exp_w + man_w
    stored %= 1 << total
    return (stored >> (total - 1)) & 1, (stored >> man_w) % (1 << exp_w), stored % (1 << man_w)
