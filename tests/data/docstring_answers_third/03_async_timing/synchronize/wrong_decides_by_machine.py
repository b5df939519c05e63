# breaks: "nothing at all for the CPU, even on a machine that has a GPU (decide by the device's type, not by the machine)."
# how: synchronizes CUDA whenever this machine has CUDA, whatever device was given
import torch


def synchronize(device) -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    elif torch.device(device).type == "mps":
        torch.mps.synchronize()
