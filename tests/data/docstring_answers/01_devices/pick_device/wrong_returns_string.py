# breaks: "Always a torch.device, never a string."
# how: returns the device name as a str ("cuda"/"mps"/"cpu"), which .to() accepts just as well.
def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"
