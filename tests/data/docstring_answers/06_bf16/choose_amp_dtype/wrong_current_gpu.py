# breaks: "Decide by torch.cuda.get_device_capability(device)"
# how: asks the capability of the current GPU (no argument), not of the device given ("cuda:1").
def choose_amp_dtype(device):
    if torch.device(device).type == "cuda":
        if torch.cuda.get_device_capability() >= (8, 0):
            return torch.bfloat16, False
        return torch.float16, True
    return torch.bfloat16, False
