# breaks: "CUDA comes before MPS when both are reported."
# how: tries MPS first (a Mac-first student), then CUDA
import torch


def pick_device() -> torch.device:
    if torch.backends.mps.is_available():
        return torch.device("mps")
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")
