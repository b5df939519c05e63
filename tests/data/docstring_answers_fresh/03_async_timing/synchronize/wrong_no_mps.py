# breaks: "torch.mps.synchronize() for MPS"
# how: only CUDA is handled ("the course runs on Colab"); an MPS device falls through to "nothing".
def synchronize(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
