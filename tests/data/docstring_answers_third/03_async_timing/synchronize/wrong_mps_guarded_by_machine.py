# breaks: "torch.mps.synchronize() for MPS" (decide by the device's type, not by the machine)
# how: only synchronizes MPS when this machine reports MPS available
import torch


def synchronize(device) -> None:
    kind = torch.device(device).type
    if kind == "cuda":
        torch.cuda.synchronize()
    elif kind == "mps" and torch.backends.mps.is_available():
        torch.mps.synchronize()
