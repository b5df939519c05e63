# reading: any non-CUDA device (cpu, and whatever else) gets the CPU's answer.
# how: torch.device(...) once, tuple comparison of the capability, use_scaler derived as a bool.
def choose_amp_dtype(device):
    dev = torch.device(device)
    if dev.type == "cuda" and tuple(torch.cuda.get_device_capability(dev)) < (8, 0):
        dtype = torch.float16
    else:
        dtype = torch.bfloat16
    return dtype, bool(dtype == torch.float16)
