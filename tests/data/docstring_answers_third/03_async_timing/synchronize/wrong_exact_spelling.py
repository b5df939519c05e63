# breaks: "torch.cuda.synchronize() for a CUDA device in any spelling (\"cuda\", \"cuda:0\", torch.device(\"cuda\"))"
# how: compares str(device) with "cuda" exactly, so "cuda:0" is never synchronized
import torch


def synchronize(device) -> None:
    name = str(device)
    if name == "cuda":
        torch.cuda.synchronize()
    elif name == "mps":
        torch.mps.synchronize()
