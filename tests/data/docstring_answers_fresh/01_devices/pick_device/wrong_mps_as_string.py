# breaks: "Always a torch.device, never a string."
# how: the MPS branch returns the string "mps" (the CUDA and CPU branches are fine, so a CPU/CUDA demo passes).
def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda")
    elif torch.backends.mps.is_available():
        return "mps"
    return torch.device("cpu")
