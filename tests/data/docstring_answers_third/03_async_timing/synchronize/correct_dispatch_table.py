# reading: devices other than cuda/mps/cpu are outside the contract (they do nothing here)
# how: looks the device type up in a dict of waiters; the CPU has no entry
import torch

_WAITERS = {"cuda": lambda: torch.cuda.synchronize(), "mps": lambda: torch.mps.synchronize()}


def synchronize(device) -> None:
    dev = device if isinstance(device, torch.device) else torch.device(device)
    waiter = _WAITERS.get(dev.type)
    if waiter is not None:
        waiter()
