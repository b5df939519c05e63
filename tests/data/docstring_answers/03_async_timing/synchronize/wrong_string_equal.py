# breaks: "torch.cuda.synchronize() for a CUDA device in any spelling ("cuda", "cuda:0", torch.device("cuda"))"
# how: compares str(device) with "cuda", so "cuda:0" is not synchronized.
def synchronize(device) -> None:
    if str(device) == "cuda":
        torch.cuda.synchronize()
    elif str(device) == "mps":
        torch.mps.synchronize()
