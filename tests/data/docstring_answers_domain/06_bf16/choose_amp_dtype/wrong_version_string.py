# breaks: "(bfloat16, False) on a CUDA device of compute capability >= 8.0 and on the CPU"
# how: compares the capability as a "major.minor" string: "10.0" and "12.0" sort below "8.0", so a Blackwell GPU
#      gets (float16, True)
import torch


def choose_amp_dtype(device):
    device = torch.device(device)
    if device.type != "cuda":
        return torch.bfloat16, False
    major, minor = torch.cuda.get_device_capability(device)
    if f"{major}.{minor}" >= "8.0":
        return torch.bfloat16, False
    return torch.float16, True
