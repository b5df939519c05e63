# reading: the logits are what the model returns under autocast; the loss is computed on them inside the block
# how: contextlib.ExitStack for the autocast block, a local closure computes the pair
import contextlib

import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    def forward():
        out = model(x)
        return out, criterion(out, y)

    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.autocast(device_type=device_type, dtype=dtype))
        pair = forward()
    return pair
