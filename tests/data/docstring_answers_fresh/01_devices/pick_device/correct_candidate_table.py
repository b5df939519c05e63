# reading: the first usable of an ordered table of (name, availability check); the CPU is the fallback.
# how: a data-driven loop instead of an if/elif chain; MPS looked up with getattr for old builds.
def pick_device() -> torch.device:
    mps = getattr(torch.backends, "mps", None)
    candidates = [
        ("cuda", torch.cuda.is_available),
        ("mps", (lambda: bool(mps.is_available())) if mps is not None else (lambda: False)),
    ]
    for name, usable in candidates:
        if usable():
            return torch.device(name)
    return torch.device("cpu")
