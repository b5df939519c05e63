# breaks: "torch.mps.synchronize() for MPS"
# how: handles CUDA only; an MPS device is never waited for.
def synchronize(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
