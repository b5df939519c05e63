# reading: "cuda" without an index asks the current device; the answer is looked up in a small table.
# how: str(device).split(":") decides the type; a dict from "native bf16?" to the pair.
_ANSWERS = {True: (torch.bfloat16, False), False: (torch.float16, True)}


def choose_amp_dtype(device):
    if str(device).split(":")[0] != "cuda":
        return _ANSWERS[True]
    major, minor = torch.cuda.get_device_capability(device)
    return _ANSWERS[major * 10 + minor >= 80]
