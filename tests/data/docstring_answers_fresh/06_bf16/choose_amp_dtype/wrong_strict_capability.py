# breaks: "(bfloat16, False) on a CUDA device of compute capability >= 8.0"
# how: a strict comparison (> (8, 0)), so an A100 (exactly 8.0) gets float16 with a scaler.
def choose_amp_dtype(device):
    device = torch.device(device)
    if device.type != "cuda":
        return torch.bfloat16, False
    if torch.cuda.get_device_capability(device) > (8, 0):
        return torch.bfloat16, False
    return torch.float16, True
