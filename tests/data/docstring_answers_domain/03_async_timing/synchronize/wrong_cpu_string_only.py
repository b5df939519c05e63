# breaks: "nothing at all for the CPU, even on a machine that has a GPU"
# how: returns early for the string "cpu" only; torch.device("cpu") falls through to the accelerator's synchronize
import torch


def synchronize(device) -> None:
    if device == "cpu":
        return
    torch.accelerator.synchronize()
