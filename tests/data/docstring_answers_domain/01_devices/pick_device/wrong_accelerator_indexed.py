# breaks: "Return torch.device("cuda") if CUDA is available"
# how: torch.accelerator route that names the current index when the machine has more than one device
import torch


def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    kind = torch.accelerator.current_accelerator().type
    if torch.accelerator.device_count() > 1:
        return torch.device(kind, torch.accelerator.current_device_index())
    return torch.device(kind)
