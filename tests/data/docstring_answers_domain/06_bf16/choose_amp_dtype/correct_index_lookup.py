# reading: the device's own index decides which GPU is asked (the current one for "cuda" without an index)
# how: parses the string by hand, asks get_device_capability by index, a small table of the two answers
import torch

_BY_NATIVE = {True: (torch.bfloat16, False), False: (torch.float16, True)}


def choose_amp_dtype(device):
    kind, _, index = str(device).partition(":")
    if kind != "cuda":
        return _BY_NATIVE[True]
    major, minor = torch.cuda.get_device_capability(int(index) if index else torch.cuda.current_device())
    return _BY_NATIVE[major > 8 or (major == 8 and minor >= 0)]
