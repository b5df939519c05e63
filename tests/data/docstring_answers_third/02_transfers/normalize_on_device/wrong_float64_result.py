# breaks: "then return the float32 tensor (x / 255 - mean) / std computed on the device"
# how: computes in float64 for precision and forgets to go back to float32
import torch


def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, non_blocking=True).to(torch.float64)
    return (x / 255 - mean) / std
