# breaks: "Names as model.named_modules() gives them ("" for a model that is itself a leaf)"
# how: skips the first entry of named_modules() (the model itself), so a bare nn.Linear gives {}.
def output_dtypes(model, x, device_type, dtype):
    found = {}
    handles = []
    try:
        for name, module in list(model.named_modules())[1:]:
            if next(module.children(), None) is None:
                def hook(mod, inp, out, name=name):
                    found[name] = out.dtype
                handles.append(module.register_forward_hook(hook))
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for h in handles:
            h.remove()
    return found
