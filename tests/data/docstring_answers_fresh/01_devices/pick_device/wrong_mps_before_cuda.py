# breaks: "CUDA comes before MPS when both are reported."
# how: asks for MPS first, so a machine reporting both (mocked, or a future Mac eGPU) gets MPS.
def pick_device() -> torch.device:
    if torch.backends.mps.is_available():
        return torch.device("mps")
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")
