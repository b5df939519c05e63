# breaks: "the device given decides, not the machine (the CPU stays the CPU beside a GPU)."
# how: checks whether the machine has CUDA instead of the device's type.
def choose_amp_dtype(device):
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        if major >= 8:
            return torch.bfloat16, False
        return torch.float16, True
    return torch.bfloat16, False
