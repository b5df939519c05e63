# breaks: "also when model(x) raises (the exception propagates)"
# how: catches the exception to "clean up" and returns what was recorded so far.
def output_dtypes(model, x, device_type, dtype):
    result = {}
    handles = []
    for name, module in model.named_modules():
        if not list(module.children()):
            handles.append(module.register_forward_hook(
                lambda mod, inp, out, name=name: result.__setitem__(name, out.dtype)))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    except Exception:
        pass
    for h in handles:
        h.remove()
    return result
