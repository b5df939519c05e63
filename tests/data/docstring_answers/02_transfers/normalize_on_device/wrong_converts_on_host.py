# breaks: "Only uint8 data crosses"
# how: converts to float32 on the host first, so four times the bytes cross.
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.float().to(device, non_blocking=True)
    return (x / 255 - mean) / std
