# reading: the capability read as a number major + minor/10 (8.0, 8.6, 7.5 compare the same as tuples).
# how: string parsing of the device type and a float comparison.
def choose_amp_dtype(device):
    kind = str(device).split(":")[0]
    if kind != "cuda":
        return (torch.bfloat16, False)
    major, minor = torch.cuda.get_device_capability(device)
    if major + minor / 10 >= 8.0:
        return (torch.bfloat16, False)
    return (torch.float16, True)
