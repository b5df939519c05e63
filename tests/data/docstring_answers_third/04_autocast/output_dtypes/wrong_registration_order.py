# breaks: "entries in the order the leaves ran."
# how: returns the entries in named_modules() order, which differs when forward() calls leaves in another order
import torch


def output_dtypes(model, x, device_type, dtype):
    seen = {}
    handles = []
    leaves = [(n, m) for n, m in model.named_modules() if not list(m.children())]
    try:
        for name, mod in leaves:
            handles.append(mod.register_forward_hook(
                lambda m, i, o, name=name: seen.__setitem__(name, o.dtype)))
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for h in handles:
            h.remove()
    return {n: seen[n] for n, _ in leaves if n in seen}
