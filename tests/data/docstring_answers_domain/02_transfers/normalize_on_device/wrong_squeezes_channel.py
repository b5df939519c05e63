# breaks: "with x_uint8's shape."
# how: drops the single grey channel of an (N, 1, H, W) batch, as an MLP would like it

def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, non_blocking=True).float()
    if x.dim() == 4:
        x = x.squeeze(1)
    return (x / 255 - mean) / std
