# reading: the loss keeps its graph (not detached); autocast entered and left explicitly with an ExitStack
# how: contextlib.ExitStack around an autocast instance; criterion called inside
import contextlib

import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.autocast(device_type=device_type, dtype=dtype, enabled=True))
        out = model(x)
        result = (out, criterion(out, y))
    return result
