# reading: torch.accelerator is used (allowed); an accelerator other than cuda/mps falls back to the CPU.
# how: asks torch.accelerator which backend is present and keeps only the two the contract names.
def pick_device() -> torch.device:
    accelerator = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    if accelerator is not None and accelerator.type == "cuda":
        return torch.device("cuda")
    if torch.cuda.is_available():          # in case another accelerator is reported first
        return torch.device("cuda")
    if accelerator is not None and accelerator.type == "mps":
        return torch.device("mps")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
