# breaks: "computed on the device, with x_uint8's shape."
# how: adds the channel dimension a CNN wants, (N, 28, 28) -> (N, 1, 28, 28).
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, torch.float32, non_blocking=True)
    if x.dim() == 3:
        x = x.unsqueeze(1)
    return (x / 255 - mean) / std
