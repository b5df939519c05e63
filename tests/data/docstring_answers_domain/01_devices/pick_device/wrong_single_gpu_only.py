# breaks: "Return torch.device("cuda") if CUDA is available"
# how: counts CUDA as available only when exactly one GPU is reported; a machine with two falls back to the CPU
import torch


def pick_device() -> torch.device:
    if torch.cuda.is_available() and torch.cuda.device_count() == 1:
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
