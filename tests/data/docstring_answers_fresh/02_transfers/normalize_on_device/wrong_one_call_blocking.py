# breaks: "Only uint8 data crosses (x_uint8.to(device, torch.float32, non_blocking=True) counts: it converts on the device)."
# how: the one-call form WITHOUT non_blocking=True, which converts on the CPU, so float32 crosses.
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, torch.float32)
    return (x / 255 - mean) / std
