# breaks: "x: a Python float or a 0-d tensor of any floating dtype."
# how: only a Python float is built in dtype; a tensor x is used as it comes, so a float32 tensor asked for
#      float16 is read from its own float32 pattern (low bits), not rounded to float16.
def bit_fields(x, dtype):
    exp_bits, man_bits = {torch.float32: (8, 23), torch.float16: (5, 10), torch.bfloat16: (8, 7)}[dtype]
    width = 1 + exp_bits + man_bits
    t = x if torch.is_tensor(x) else torch.tensor(x, dtype=dtype)
    int_type = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    bits = int(t.view(int_type).item()) & ((1 << width) - 1)
    return bits >> (exp_bits + man_bits), (bits >> man_bits) & ((1 << exp_bits) - 1), bits & ((1 << man_bits) - 1)
