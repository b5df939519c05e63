# breaks: "Return torch.device(\"cuda\") if CUDA is available"
# how: returns torch.device(f"cuda:{current_device()}") i.e. an indexed device rather than torch.device("cuda")
import torch


def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device(f"cuda:{torch.cuda.current_device()}")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
