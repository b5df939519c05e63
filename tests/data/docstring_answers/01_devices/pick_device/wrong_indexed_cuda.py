# breaks: "Return torch.device("cuda") if CUDA is available"
# how: returns the current GPU with its index, torch.device("cuda:0"), which is not equal to torch.device("cuda").
def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
