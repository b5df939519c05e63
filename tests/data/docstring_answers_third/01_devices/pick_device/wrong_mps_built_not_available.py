# breaks: ""Available" means usable on this machine, not merely built into PyTorch."
# how: checks torch.backends.mps.is_built() instead of is_available() for the MPS branch
import torch


def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_built():
        return torch.device("mps")
    return torch.device("cpu")
