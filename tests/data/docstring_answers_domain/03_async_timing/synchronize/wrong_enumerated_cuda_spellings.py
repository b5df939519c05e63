# breaks: "torch.cuda.synchronize() for a CUDA device in any spelling ("cuda", "cuda:0", torch.device("cuda"))"
# how: tests membership in exactly the three spellings the docstring lists, so torch.device("cuda", 0) and "cuda:1"
# are taken for something else and not waited for
import torch

_CUDA_NAMES = ("cuda", "cuda:0", torch.device("cuda"))


def synchronize(device) -> None:
    if device in _CUDA_NAMES:
        torch.cuda.synchronize()
    elif torch.device(device).type == "mps":
        torch.mps.synchronize()
