# breaks: ""Available" means usable on this machine, not merely built into PyTorch."
# how: torch.accelerator.current_accelerator() without check_available reports the accelerator torch was
#      BUILT with, so a CUDA wheel on a GPU-less machine returns cuda.
def pick_device() -> torch.device:
    acc = torch.accelerator.current_accelerator()
    if acc is not None and acc.type in ("cuda", "mps"):
        return torch.device(acc.type)
    return torch.device("cpu")
