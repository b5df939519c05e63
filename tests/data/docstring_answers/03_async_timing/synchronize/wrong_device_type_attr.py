# breaks: "device is a str or a torch.device."
# how: reads device.type directly, which a str does not have (AttributeError for "cuda").
def synchronize(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()
    elif device.type == "mps":
        torch.mps.synchronize()
