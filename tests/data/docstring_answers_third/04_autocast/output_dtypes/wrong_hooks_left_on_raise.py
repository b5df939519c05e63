# breaks: "Recorded with forward hooks, every one of them removed before returning, also when model(x) raises"
# how: removes the hooks after the forward without try/finally, so a raising model(x) leaves them attached
import torch


def output_dtypes(model, x, device_type, dtype):
    seen = {}
    handles = []
    for name, mod in model.named_modules():
        if not list(mod.children()):
            handles.append(mod.register_forward_hook(
                lambda m, i, o, name=name: seen.__setitem__(name, o.dtype)))
    with torch.autocast(device_type=device_type, dtype=dtype):
        model(x)
    for h in handles:
        h.remove()
    return seen
