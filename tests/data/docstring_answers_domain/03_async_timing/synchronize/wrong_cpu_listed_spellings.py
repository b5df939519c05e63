# breaks: "nothing at all for the CPU ... (decide by the device's type, not by the machine)"
# how: knows "cpu" and torch.device("cpu") as the CPU; "cpu:0" is handed to whatever accelerator the machine has
import torch


def synchronize(device) -> None:
    if device in ("cpu", torch.device("cpu")):
        return None
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    elif torch.backends.mps.is_available():
        torch.mps.synchronize()
