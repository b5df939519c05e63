# breaks: "x_uint8 is not changed: same values, same device."
# how: moves the caller's tensor itself (x_uint8.data = ...) so that a second call finds it on the device already.
def normalize_on_device(x_uint8, device, mean, std):
    if x_uint8.device != torch.device(device):
        x_uint8.data = x_uint8.data.to(device, non_blocking=True)
    return (x_uint8.to(torch.float32) / 255 - mean) / std
