# reading: torch.accelerator may be used instead of torch.cuda / torch.backends.mps
# how: current_accelerator(check_available=True) and its .type, never an index, whatever the device count
import torch


def pick_device() -> torch.device:
    found = torch.accelerator.current_accelerator(check_available=True)
    if found is None:
        return torch.device("cpu")
    return torch.device(found.type)
