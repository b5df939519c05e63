# breaks: "(bfloat16, False) on a CUDA device of compute capability >= 8.0"
# how: a table of the capabilities of the GPUs it knows with native bfloat16 (Ampere, Ada, Hopper, Blackwell):
#      a newer one (10.3, 11.0, 12.1) gets (float16, True)
import torch

_NATIVE_BF16 = {(8, 0), (8, 6), (8, 7), (8, 9), (9, 0), (10, 0), (12, 0)}


def choose_amp_dtype(device):
    device = torch.device(device)
    if device.type == "cuda" and tuple(torch.cuda.get_device_capability(device)) not in _NATIVE_BF16:
        return torch.float16, True
    return torch.bfloat16, False
