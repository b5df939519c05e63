# breaks: "entries in the order the leaves ran."
# how: records during the forward, then lists the results in named_modules() order.
def output_dtypes(model, x, device_type, dtype):
    seen = {}
    handles = []
    for name, module in model.named_modules():
        if not list(module.children()):
            handles.append(module.register_forward_hook(
                lambda mod, inp, out, name=name: seen.__setitem__(name, out.dtype)))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for h in handles:
            h.remove()
    return {name: seen[name] for name, _ in model.named_modules() if name in seen}
