# breaks: "torch.cuda.synchronize() for a CUDA device in any spelling ("cuda", "cuda:0", torch.device("cuda"))"
# how: compares with "cuda" / torch.device("cuda"): an indexed "cuda:0" or torch.device("cuda", 0) is not synchronized.
def synchronize(device) -> None:
    if device in ("cuda", torch.device("cuda")):
        torch.cuda.synchronize()
    elif device in ("mps", torch.device("mps")):
        torch.mps.synchronize()
