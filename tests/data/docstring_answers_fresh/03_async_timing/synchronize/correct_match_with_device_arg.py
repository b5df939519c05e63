# reading: torch.cuda.synchronize may be given the device (same as no argument for "cuda"; waits on that GPU for "cuda:1").
# how: a match statement on torch.device(device).type.
def synchronize(device) -> None:
    dev = torch.device(device)
    match dev.type:
        case "cuda":
            torch.cuda.synchronize(dev)
        case "mps":
            torch.mps.synchronize()
        case _:
            return None
