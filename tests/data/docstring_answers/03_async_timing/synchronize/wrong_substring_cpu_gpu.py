# breaks: "nothing at all for the CPU, even on a machine that has a GPU"
# how: treats everything that is not "mps" as CUDA when CUDA exists (the CPU branch is missing).
def synchronize(device) -> None:
    kind = torch.device(device).type
    if kind == "mps":
        torch.mps.synchronize()
    elif torch.cuda.is_available():
        torch.cuda.synchronize()
