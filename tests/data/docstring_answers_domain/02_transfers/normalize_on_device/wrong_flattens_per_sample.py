# breaks: "with x_uint8's shape."
# how: flattens each sample with reshape(len(x), -1) and back: a 0-dim or empty batch raises
import torch


def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, non_blocking=True)
    flat = x.reshape(len(x), -1).to(torch.float32)
    flat = (flat / 255 - mean) / std
    return flat.reshape(x.shape)
