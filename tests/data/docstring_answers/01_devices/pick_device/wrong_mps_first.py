# breaks: "CUDA comes before MPS when both are reported."
# how: checks Apple's backend first, so a machine reporting both gets mps.
def pick_device() -> torch.device:
    if torch.backends.mps.is_available():
        return torch.device("mps")
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")
