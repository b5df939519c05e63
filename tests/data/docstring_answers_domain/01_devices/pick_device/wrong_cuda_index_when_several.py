# breaks: "Return torch.device("cuda") if CUDA is available"
# how: with several GPUs returns the current one by index, torch.device("cuda", 0), not torch.device("cuda")
import torch


def pick_device() -> torch.device:
    if torch.cuda.is_available():
        if torch.cuda.device_count() > 1:
            return torch.device("cuda", torch.cuda.current_device())  # several GPUs: say which one
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
