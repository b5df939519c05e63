# breaks: "nothing at all for the CPU, even on a machine that has a GPU (decide by the device's type, not by the machine)."
# how: synchronizes CUDA whenever this machine has CUDA, so synchronize("cpu") on a GPU machine calls torch.cuda.
def synchronize(device) -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    elif torch.device(device).type == "mps":
        torch.mps.synchronize()
