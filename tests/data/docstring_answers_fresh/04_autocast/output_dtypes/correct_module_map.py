# reading: a leaf that runs twice keeps its first dtype; identity (not name) maps a module to its name.
# how: one shared hook looks the module up in an id -> name map; try/finally removes the handles.
def output_dtypes(model, x, device_type, dtype):
    names = {id(m): n for n, m in model.named_modules() if sum(1 for _ in m.children()) == 0}
    order = []
    dtypes = {}

    def shared_hook(module, inputs, output):
        name = names[id(module)]
        if name not in dtypes:
            order.append(name)
            dtypes[name] = output.dtype

    handles = []
    try:
        for module in model.modules():
            if id(module) in names:
                handles.append(module.register_forward_hook(shared_hook))
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        while handles:
            handles.pop().remove()
    return {name: dtypes[name] for name in order}
