# reading: PyTorch's own rounding (.to(dtype), a float64 through float32); fields cut from a binary string.
# how: formats the unsigned pattern as a fixed-width string of 0/1 and slices it with LAYOUTS' widths.
def bit_fields(x, dtype):
    sign_w, exp_w, man_w = {torch.float32: (1, 8, 23), torch.float16: (1, 5, 10), torch.bfloat16: (1, 8, 7)}[dtype]
    width = sign_w + exp_w + man_w
    as_int = torch.int32 if width == 32 else torch.int16
    rounded = torch.as_tensor(x).detach().reshape(()).to(dtype)
    unsigned = int(rounded.view(as_int).item()) % (1 << width)
    text = format(unsigned, f"0{width}b")
    return int(text[0], 2), int(text[1:1 + exp_w], 2), int(text[1 + exp_w:], 2)
