# breaks: "nothing at all for the CPU, even on a machine that has a GPU (decide by the device's type, ...)"
# how: CUDA by the device's type, but every other device synchronizes MPS when the machine is a Mac, the CPU too
import torch


def synchronize(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
    elif torch.backends.mps.is_available():
        torch.mps.synchronize()
