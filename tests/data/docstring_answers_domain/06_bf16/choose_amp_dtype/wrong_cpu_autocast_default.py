# breaks: "(bfloat16, False) on a CUDA device of compute capability >= 8.0 and on the CPU"
# how: on the CPU returns CPU autocast's current default dtype (bfloat16 unless someone set another), not bfloat16
import torch


def choose_amp_dtype(device):
    device = torch.device(device)
    if device.type == "cuda":
        if torch.cuda.get_device_capability(device) >= (8, 0):
            return torch.bfloat16, False
        return torch.float16, True
    return torch.get_autocast_dtype("cpu"), False
