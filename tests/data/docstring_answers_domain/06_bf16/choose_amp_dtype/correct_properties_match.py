# reading: the capability read from the device's properties (major, minor), which is what get_device_capability returns
# how: a match statement on the device type; the capability from torch.cuda.get_device_properties(device)
import torch


def choose_amp_dtype(device):
    match torch.device(device).type:
        case "cuda":
            props = torch.cuda.get_device_properties(device)
            native = (props.major, props.minor) >= (8, 0)
            return (torch.bfloat16, False) if native else (torch.float16, True)
        case _:
            return (torch.bfloat16, False)
