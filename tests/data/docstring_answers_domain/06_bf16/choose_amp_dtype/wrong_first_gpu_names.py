# breaks: "device: a torch.device or a string ("cuda", "cuda:0", "cpu")"
# how: knows CUDA by the names of the first GPU only ("cuda", "cuda:0"): "cuda:1" is taken for the CPU
import torch


def choose_amp_dtype(device):
    if str(device) in ("cuda", "cuda:0"):
        if torch.cuda.get_device_capability(device) >= (8, 0):
            return torch.bfloat16, False
        return torch.float16, True
    return torch.bfloat16, False
