# breaks: "the device given decides, not the machine (the CPU stays the CPU beside a GPU)."
# how: asks the machine's current CUDA device whenever CUDA is available, whatever device was given
import torch


def choose_amp_dtype(device):
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        if (major, minor) < (8, 0):
            return torch.float16, True
    return torch.bfloat16, False
