# breaks: "torch.mps.synchronize() for MPS" (decide by the device's type)
# how: strips an index only from CUDA names: str(device) == "mps" misses "mps:0"
import torch


def synchronize(device) -> None:
    name = str(device)
    if name.split(":")[0] == "cuda":
        torch.cuda.synchronize()
    elif name == "mps":
        torch.mps.synchronize()
