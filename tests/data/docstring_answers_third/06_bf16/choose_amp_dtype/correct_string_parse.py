# reading: the given device's own capability is asked (its index, or the current device for plain "cuda")
# how: accepts str or torch.device by str(); capability major compared with 8; only "cuda" prefixes reach CUDA
import torch


def choose_amp_dtype(device):
    spec = str(device)
    if spec.split(":")[0] != "cuda":
        return torch.bfloat16, False
    major = torch.cuda.get_device_capability(torch.device(spec))[0]
    old_gpu = major < 8
    return (torch.float16, True) if old_gpu else (torch.bfloat16, False)
