# breaks: "Names as model.named_modules() gives them"
# how: lists the modules with remove_duplicate=False: a leaf reachable under two names (one module object, run once)
#      gets an entry under each name
import torch


def output_dtypes(model, x, device_type, dtype):
    found, handles = {}, []
    for name, module in model.named_modules(remove_duplicate=False):
        if next(module.children(), None) is None:
            handles.append(module.register_forward_hook(
                lambda m, inputs, output, name=name: found.__setitem__(name, output.dtype)))
    try:
        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return found
