# breaks: "never by casting a float64 x to float32 first."
# how: brings every x to float32 first "to match the float32 case", then works in float64
import torch


def roundtrip_rel_error(x, dtype):
    x32 = x.to(torch.float32)
    back = x32.to(dtype).to(torch.float64)
    ref = x32.to(torch.float64)
    return (ref - back).abs() / ref.abs()
