# breaks: "overflow to inf gives inf."
# how: cleans the result with nan_to_num "for the plots", which turns inf into the largest finite float.
def roundtrip_rel_error(x, dtype):
    x64 = x.double()
    back = x.to(dtype).double()
    return torch.nan_to_num((x64 - back).abs() / x64.abs())
