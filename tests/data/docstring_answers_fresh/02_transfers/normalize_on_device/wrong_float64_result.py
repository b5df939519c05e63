# breaks: "then return the float32 tensor (x / 255 - mean) / std computed on the device"
# how: normalizes in float64 "for accuracy" on the device and returns the float64 tensor.
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, non_blocking=True).double()
    return (x / 255.0 - mean) / std
