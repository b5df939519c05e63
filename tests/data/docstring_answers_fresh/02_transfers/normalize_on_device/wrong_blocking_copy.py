# breaks: "Move the uint8 batch x_uint8 to device (non_blocking=True)"
# how: moves the uint8 batch with a plain .to(device) (blocking), then normalizes on the device.
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device)
    x = x.float()
    return (x / 255 - mean) / std
