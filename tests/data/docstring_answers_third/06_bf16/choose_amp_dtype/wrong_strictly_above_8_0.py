# breaks: "(bfloat16, False) on a CUDA device of compute capability >= 8.0"
# how: compares the capability tuple with > (8, 0), so an A100 (8, 0) gets float16 with a scaler
import torch


def choose_amp_dtype(device):
    dev = torch.device(device)
    if dev.type == "cuda" and torch.cuda.get_device_capability(dev) > (8, 0):
        return torch.bfloat16, False
    if dev.type == "cuda":
        return torch.float16, True
    return torch.bfloat16, False
