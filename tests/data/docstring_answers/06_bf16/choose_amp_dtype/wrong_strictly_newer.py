# breaks: "(bfloat16, False) on a CUDA device of compute capability >= 8.0"
# how: requires a major version above 8, so an A100 (8.0) gets float16.
def choose_amp_dtype(device):
    if torch.device(device).type == "cuda":
        major, _ = torch.cuda.get_device_capability(device)
        if major > 8:
            return torch.bfloat16, False
        return torch.float16, True
    return torch.bfloat16, False
