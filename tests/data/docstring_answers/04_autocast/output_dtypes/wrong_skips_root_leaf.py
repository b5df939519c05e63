# breaks: "Names as model.named_modules() gives them ("" for a model that is itself a leaf)"
# how: skips the "" entry of named_modules(), assuming it is always the container.
def output_dtypes(model, x, device_type, dtype):
    result = {}
    handles = []
    for name, module in model.named_modules():
        if name and not list(module.children()):
            handles.append(module.register_forward_hook(
                lambda mod, inp, out, name=name: result.__setitem__(name, out.dtype)))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for h in handles:
            h.remove()
    return result
