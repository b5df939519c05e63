# breaks: "device: a torch.device or a string ("cuda", "cuda:0", "cpu")"
# how: compares str(device) with "cuda", so "cuda:0" is handled as the CPU.
def choose_amp_dtype(device):
    if str(device) == "cuda":
        if torch.cuda.get_device_capability(device)[0] >= 8:
            return torch.bfloat16, False
        return torch.float16, True
    return torch.bfloat16, False
