# breaks: "Return torch.device("cuda") if CUDA is available"
# how: returns torch.device("cuda:0"), which is not equal to torch.device("cuda") (index 0 vs None).
def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
