# breaks: "hooks the model already had stay"
# how: cleans up by clearing every leaf's _forward_hooks dict, which also deletes hooks the caller had registered.
def output_dtypes(model, x, device_type, dtype):
    found = {}
    leaves = [(n, m) for n, m in model.named_modules() if not any(True for _ in m.children())]
    for name, module in leaves:
        module.register_forward_hook(lambda mod, inp, out, name=name: found.__setitem__(name, out.dtype))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for _, module in leaves:
            module._forward_hooks.clear()
    return found
