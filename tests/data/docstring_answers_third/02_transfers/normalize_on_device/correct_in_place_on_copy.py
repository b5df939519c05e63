# reading: the uint8 tensor may be moved first and converted on the device as a separate step
# how: in-place div_/sub_/div_ on the fresh float32 copy (never on x_uint8), same operation order
import torch


def normalize_on_device(x_uint8, device, mean, std):
    arrived = x_uint8.to(device=device, non_blocking=True)
    work = arrived.to(dtype=torch.float32, copy=True)
    return work.div_(255).sub_(mean).div_(std)
