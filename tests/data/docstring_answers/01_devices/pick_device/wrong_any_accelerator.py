# breaks: "other accelerators (XPU, ...) are not checked."
# how: returns whatever torch.accelerator reports (xpu, hpu, ...), not only cuda or mps.
def pick_device() -> torch.device:
    if torch.accelerator.is_available():
        return torch.device(torch.accelerator.current_accelerator().type)
    return torch.device("cpu")
