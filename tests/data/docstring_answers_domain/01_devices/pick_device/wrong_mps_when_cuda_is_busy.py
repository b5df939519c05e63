# breaks: "CUDA comes before MPS when both are reported."
# how: prefers MPS over CUDA when several CUDA GPUs are reported (thinks a multi-GPU box needs DDP)
import torch


def pick_device() -> torch.device:
    cuda = torch.cuda.is_available()
    mps = torch.backends.mps.is_available()
    if cuda and (torch.cuda.device_count() == 1 or not mps):
        return torch.device("cuda")
    if mps:
        return torch.device("mps")
    return torch.device("cpu")
