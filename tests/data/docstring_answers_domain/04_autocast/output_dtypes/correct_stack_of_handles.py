# reading: a leaf is a module without children; hooks removed in reverse order, in a finally
# how: contextlib.ExitStack owns every handle (callback handle.remove), inference_mode instead of no_grad
import contextlib

import torch


def output_dtypes(model, x, device_type, dtype):
    seen = {}
    with contextlib.ExitStack() as stack:
        for name, module in model.named_modules():
            if next(iter(module.children()), None) is not None:
                continue

            def hook(_module, _inputs, output, _name=name):
                seen[_name] = output.dtype

            stack.callback(module.register_forward_hook(hook).remove)
        with torch.inference_mode(), torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    return seen
