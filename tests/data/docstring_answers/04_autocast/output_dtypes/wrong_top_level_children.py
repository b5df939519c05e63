# breaks: "Names as model.named_modules() gives them"
# how: hooks model.named_children() only, so nested leaves are missed and a nested block is reported by its own name.
def output_dtypes(model, x, device_type, dtype):
    result = {}
    handles = []
    children = list(model.named_children()) or [("", model)]
    for name, module in children:
        handles.append(module.register_forward_hook(
            lambda mod, inp, out, name=name: result.__setitem__(name, out.dtype)))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for h in handles:
            h.remove()
    return result
