# breaks: "never by casting a float64 x to float32 first."
# how: brings every x to float32 first ("16-bit errors are far above float32's"), losing a float64 x's low digits.
def roundtrip_rel_error(x, dtype):
    x32 = x.float()
    return ((x32 - x32.to(dtype).float()).abs() / x32.abs()).double()
