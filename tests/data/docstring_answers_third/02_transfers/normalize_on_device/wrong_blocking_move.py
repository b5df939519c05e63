# breaks: "Move the uint8 batch x_uint8 to device (non_blocking=True)"
# how: a plain .to(device) (blocking copy)
import torch


def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device).float()
    return (x / 255 - mean) / std
