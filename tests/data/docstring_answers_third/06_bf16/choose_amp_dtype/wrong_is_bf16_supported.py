# breaks: "Decide by torch.cuda.get_device_capability(device), not by torch.cuda.is_bf16_supported() (True on a T4, by emulation)."
# how: asks is_bf16_supported(), which says True on a T4
import torch


def choose_amp_dtype(device):
    if torch.device(device).type != "cuda":
        return torch.bfloat16, False
    if torch.cuda.is_bf16_supported():
        return torch.bfloat16, False
    return torch.float16, True
