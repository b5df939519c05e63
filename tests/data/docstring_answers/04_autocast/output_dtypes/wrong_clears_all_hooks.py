# breaks: "hooks the model already had stay"
# how: cleans up by clearing every module's _forward_hooks dict, removing the model's own hooks too.
def output_dtypes(model, x, device_type, dtype):
    result = {}
    leaves = [(n, m) for n, m in model.named_modules() if not list(m.children())]
    for name, module in leaves:
        module.register_forward_hook(lambda mod, inp, out, name=name: result.__setitem__(name, out.dtype))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for _, module in leaves:
            module._forward_hooks.clear()
    return result
