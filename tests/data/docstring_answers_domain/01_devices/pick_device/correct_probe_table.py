# reading: "available" is what each backend's is_available() reports at call time; the order is a table
# how: a table of (name, probe) looked up at every call, torch.mps.is_available for Apple's backend
import torch


def pick_device() -> torch.device:
    probes = (("cuda", lambda: torch.cuda.is_available()), ("mps", lambda: torch.mps.is_available()))
    for name, probe in probes:
        if probe():
            return torch.device(type=name)
    return torch.device(type="cpu")
