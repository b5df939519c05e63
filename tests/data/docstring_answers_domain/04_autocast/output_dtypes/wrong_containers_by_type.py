# breaks: "every leaf module of model that runs"
# how: takes every module that is not a Sequential, ModuleList or ModuleDict (and not the model itself) for a leaf:
#      a custom block with children of its own is recorded too
import torch

_CONTAINERS = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict)


def output_dtypes(model, x, device_type, dtype):
    found, handles = {}, []
    for name, module in model.named_modules():
        leaf = not isinstance(module, _CONTAINERS) and (module is not model or not list(model.children()))
        if leaf:
            handles.append(module.register_forward_hook(
                lambda m, inputs, output, name=name: found.__setitem__(name, output.dtype)))
    try:
        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return found
