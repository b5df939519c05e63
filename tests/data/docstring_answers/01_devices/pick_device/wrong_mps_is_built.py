# breaks: "else torch.device("mps") if Apple's Metal backend is available"
# how: asks whether PyTorch was built with MPS (is_built) instead of whether it is available on this machine.
def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_built():
        return torch.device("mps")
    return torch.device("cpu")
