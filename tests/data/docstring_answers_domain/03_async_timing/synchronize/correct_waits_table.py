# reading: torch.cuda.synchronize(device) waits for that CUDA device; a str or a torch.device names it alike
# how: a helper of its own; CUDA through torch.cuda.synchronize(device); returns None explicitly
import torch


def _kind(device):
    return device.type if isinstance(device, torch.device) else torch.device(device).type


def synchronize(device) -> None:
    kind = _kind(device)
    waits = {"cuda": lambda: torch.cuda.synchronize(device), "mps": torch.mps.synchronize}
    wait = waits.get(kind)
    if wait is not None:
        wait()
    return None
