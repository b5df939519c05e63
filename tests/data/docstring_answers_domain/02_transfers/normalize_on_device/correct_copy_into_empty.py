# reading: "move ... (non_blocking=True)" is any non-blocking copy of the uint8 data, not only Tensor.to
# how: copies into an uint8 tensor allocated on the device with copy_(non_blocking=True), then torch.sub/torch.div
import torch


def normalize_on_device(x_uint8, device, mean, std):
    target = torch.empty(x_uint8.shape, dtype=torch.uint8, device=device)
    target.copy_(x_uint8, non_blocking=True)
    scaled = target.to(torch.float32).div(255.0)
    return torch.div(torch.sub(scaled, mean), std)
