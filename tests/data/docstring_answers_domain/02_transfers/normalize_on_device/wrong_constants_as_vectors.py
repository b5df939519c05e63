# breaks: "with x_uint8's shape."
# how: mean and std become one-element vectors on the device: a 0-dim x_uint8 comes back with shape (1,)
import torch


def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, non_blocking=True).float()
    mean_t = torch.tensor([mean], dtype=torch.float32, device=device)
    std_t = torch.tensor([std], dtype=torch.float32, device=device)
    return (x / 255 - mean_t) / std_t
