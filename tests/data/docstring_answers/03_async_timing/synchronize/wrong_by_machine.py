# breaks: "nothing at all for the CPU, even on a machine that has a GPU (decide by the device's type, not by the machine)."
# how: synchronizes CUDA whenever the machine has CUDA, whatever device was given.
def synchronize(device) -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    elif torch.backends.mps.is_available():
        torch.mps.synchronize()
