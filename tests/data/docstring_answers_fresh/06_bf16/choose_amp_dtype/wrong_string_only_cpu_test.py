# breaks: "device: a torch.device or a string ("cuda", "cuda:0", "cpu")"
# how: tests device == "cpu", which is False for torch.device("cpu"): that one is sent to the CUDA branch.
def choose_amp_dtype(device):
    if device == "cpu":
        return torch.bfloat16, False
    major, _ = torch.cuda.get_device_capability(device)
    if major >= 8:
        return torch.bfloat16, False
    return torch.float16, True
