# breaks: "{name: output dtype} of every leaf module of model that runs in one forward pass of x"
# how: inspects in eval mode (no dropout) and switches the model back to training afterwards: a model the caller had
#      in eval mode comes back in training mode
import torch


def output_dtypes(model, x, device_type, dtype):
    found, handles = {}, []
    for name, module in model.named_modules():
        if next(module.children(), None) is None:
            handles.append(module.register_forward_hook(
                lambda m, inputs, output, name=name: found.__setitem__(name, output.dtype)))
    model.eval()
    try:
        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for handle in handles:
            handle.remove()
        model.train()
    return found
