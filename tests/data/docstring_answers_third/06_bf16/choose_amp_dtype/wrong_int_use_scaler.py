# breaks: "use_scaler is a bool."
# how: computes use_scaler as int(major < 8) (0 or 1)
import torch


def choose_amp_dtype(device):
    dev = torch.device(device)
    if dev.type != "cuda":
        return torch.bfloat16, 0
    major, _minor = torch.cuda.get_device_capability(dev)
    needs_scaler = int(major < 8)
    return (torch.float16 if needs_scaler else torch.bfloat16), needs_scaler
