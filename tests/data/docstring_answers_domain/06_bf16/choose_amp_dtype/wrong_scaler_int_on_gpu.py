# breaks: "use_scaler is a bool."
# how: on a CUDA device use_scaler is the int 1 or 0 (equal to True and False, but not a bool); on the CPU a bool
import torch


def choose_amp_dtype(device):
    device = torch.device(device)
    if device.type != "cuda":
        return torch.bfloat16, False
    old = int(torch.cuda.get_device_capability(device) < (8, 0))
    return (torch.float16 if old else torch.bfloat16), old
