# reading: a device without an index ("cuda", not "cuda:0"); availability asked at call time, not at import
# how: walks a table of (name, probe) pairs and builds the device from the first probe that answers True
import torch

_PROBES = (("cuda", lambda: torch.cuda.is_available()),
           ("mps", lambda: getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()))


def pick_device() -> torch.device:
    for name, probe in _PROBES:
        if probe():
            return torch.device(name)
    return torch.device(type="cpu")
