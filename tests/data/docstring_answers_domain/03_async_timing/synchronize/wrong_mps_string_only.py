# breaks: "torch.mps.synchronize() for MPS ... device is a str or a torch.device."
# how: reads the type for CUDA but compares the MPS case with the string "mps", so torch.device("mps") and "mps:0"
# return without waiting
import torch


def synchronize(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
    elif device == "mps":
        torch.mps.synchronize()
