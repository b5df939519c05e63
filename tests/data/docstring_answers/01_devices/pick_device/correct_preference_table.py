# reading: availability is asked in preference order from a table; the first available name wins.
# how: a list of (name, probe) pairs walked with next().
def pick_device() -> torch.device:
    preference = [
        ("cuda", torch.cuda.is_available),
        ("mps", lambda: torch.backends.mps.is_available()),
    ]
    name = next((name for name, available in preference if available()), "cpu")
    return torch.device(name)
