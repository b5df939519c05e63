# breaks: "Elementwise |x - x.to(dtype)| / |x| for a float32 or float64 tensor x without zeros, same shape."
# how: works in place on x.double(), which for a float64 x is x itself: the caller's x is overwritten with the
#      errors (right values, float32 x untouched)
def roundtrip_rel_error(x, dtype):
    size = x.double().abs()
    err = x.double()
    err.sub_(x.to(dtype).double()).abs_()
    return err.div_(size)
