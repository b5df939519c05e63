# reading: decide by torch.device(device).type; any other device type is outside the contract
# how: structural pattern matching on a torch.device's type attribute; CUDA through torch.accelerator
import torch


def synchronize(device) -> None:
    match torch.device(device):
        case torch.device(type="cuda"):
            torch.accelerator.synchronize()
        case torch.device(type="mps"):
            torch.mps.synchronize()
        case _:
            pass
