# breaks: "every one of them removed before returning, also when model(x) raises (the exception propagates)"
# how: removes the hooks after the forward pass, but not in a finally: when model(x) raises they stay.
def output_dtypes(model, x, device_type, dtype):
    found = {}
    handles = []
    for name, module in model.named_modules():
        if len(list(module.children())) == 0:
            def hook(mod, inputs, output, name=name):
                found[name] = output.dtype
            handles.append(module.register_forward_hook(hook))
    with torch.autocast(device_type=device_type, dtype=dtype):
        model(x)
    for h in handles:
        h.remove()
    return found
