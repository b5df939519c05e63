# reading: one global module forward hook, filtered to this model's leaves by identity, counts as "forward hooks"; a leaf that runs twice keeps its first position and last dtype.
# how: torch.nn.modules.module.register_module_forward_hook, removed in finally.
from torch.nn.modules.module import register_module_forward_hook


def output_dtypes(model, x, device_type, dtype):
    leaf_names = {id(m): n for n, m in model.named_modules() if len(m._modules) == 0}
    out_dtypes = {}

    def on_forward(module, inputs, output):
        name = leaf_names.get(id(module))
        if name is not None:
            out_dtypes[name] = output.dtype

    handle = register_module_forward_hook(on_forward)
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        handle.remove()
    return out_dtypes
