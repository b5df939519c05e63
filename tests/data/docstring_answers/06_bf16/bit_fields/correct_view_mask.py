# reading: a Python float is rounded directly from float64 (torch's .to); a tensor of any floating dtype is rounded from its own dtype.
# how: reinterpret the rounded value with Tensor.view as an int type, widen to int64, mask.
_FIELDS = {
    torch.float32: (8, 23, torch.int32),
    torch.float16: (5, 10, torch.int16),
    torch.bfloat16: (8, 7, torch.int16),
}


def bit_fields(x, dtype):
    exp_bits, man_bits, same_size_int = _FIELDS[dtype]
    if isinstance(x, torch.Tensor):
        source = x.detach().reshape(())
    else:
        source = torch.tensor(float(x), dtype=torch.float64)
    rounded = source.to(dtype)
    width = 1 + exp_bits + man_bits
    pattern = int(rounded.view(same_size_int).item()) & ((1 << width) - 1)
    return (pattern >> (width - 1),
            (pattern >> man_bits) & ((1 << exp_bits) - 1),
            pattern & ((1 << man_bits) - 1))
