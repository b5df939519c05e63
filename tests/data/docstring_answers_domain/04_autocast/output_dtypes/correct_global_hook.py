# reading: "recorded with forward hooks": one global module forward hook is a forward hook too, removed in finally
# how: register_module_forward_hook, leaves found by id; grad mode left as the caller has it
import torch


def output_dtypes(model, x, device_type, dtype):
    leaves = {}
    for name, module in model.named_modules():
        if len(module._modules) == 0:
            leaves[id(module)] = name
    order = []

    def record(module, inputs, output):
        if id(module) in leaves:
            order.append((leaves[id(module)], output.dtype))

    handle = torch.nn.modules.module.register_module_forward_hook(record)
    try:
        with torch.autocast(device_type, dtype=dtype):
            model(x)
    finally:
        handle.remove()
    result = {}
    for name, dt in order:
        result.setdefault(name, dt)
    return result
