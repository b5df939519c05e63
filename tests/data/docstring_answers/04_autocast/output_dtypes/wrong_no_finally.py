# breaks: "every one of them removed before returning, also when model(x) raises (the exception propagates)"
# how: removes the hooks after a successful forward only; an exception leaves them registered.
def output_dtypes(model, x, device_type, dtype):
    result = {}
    handles = []
    for name, module in model.named_modules():
        if len(list(module.children())) == 0:
            def hook(mod, inp, out, name=name):
                result[name] = out.dtype
            handles.append(module.register_forward_hook(hook))
    with torch.autocast(device_type=device_type, dtype=dtype):
        model(x)
    for h in handles:
        h.remove()
    return result
