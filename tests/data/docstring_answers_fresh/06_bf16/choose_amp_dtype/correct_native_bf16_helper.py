# reading: the capability of the device given (its index, or the current one for "cuda"); other types as the CPU.
# how: gpucourse.amp.native_bf16 (imported by the notebook) on torch.cuda.get_device_capability(device).
from gpucourse.amp import native_bf16


def choose_amp_dtype(device):
    dev = torch.device(device)
    if dev.type == "cuda" and not native_bf16(torch.cuda.get_device_capability(dev)):
        return torch.float16, True
    return torch.bfloat16, False
