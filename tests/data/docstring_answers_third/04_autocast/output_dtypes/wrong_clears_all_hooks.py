# breaks: "hooks the model already had stay"
# how: cleans up by clearing every leaf's _forward_hooks dict instead of removing its own handles
import torch


def output_dtypes(model, x, device_type, dtype):
    seen = {}
    leaves = [m for _, m in model.named_modules() if not list(m.children())]
    for name, mod in model.named_modules():
        if not list(mod.children()):
            mod.register_forward_hook(lambda m, i, o, name=name: seen.__setitem__(name, o.dtype))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for mod in leaves:
            mod._forward_hooks.clear()
    return seen
