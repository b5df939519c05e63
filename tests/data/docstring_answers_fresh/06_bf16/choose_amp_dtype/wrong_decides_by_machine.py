# breaks: "the device given decides, not the machine (the CPU stays the CPU beside a GPU)."
# how: asks the capability whenever this machine has CUDA, so "cpu" on a T4 machine gets (float16, True).
def choose_amp_dtype(device):
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        if (major, minor) < (8, 0):
            return torch.float16, True
    return torch.bfloat16, False
