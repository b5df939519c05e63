# breaks: "with x_uint8's shape."
# how: flattens each image to a vector on the device ("the MLP wants 784 features"): (N, 784) instead of (N, 1, 28, 28).
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, non_blocking=True).float()
    return ((x / 255 - mean) / std).flatten(1)
