# breaks: "also when model(x) raises (the exception propagates)"
# how: catches what model(x) raises and raises a new RuntimeError with a message of its own in its place
import torch


def output_dtypes(model, x, device_type, dtype):
    found, handles = {}, []
    for name, module in model.named_modules():
        if not list(module.children()):
            handles.append(module.register_forward_hook(
                lambda m, inputs, output, name=name: found.__setitem__(name, output.dtype)))
    try:
        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    except Exception as error:
        raise RuntimeError(f"output_dtypes: the forward pass failed ({error})") from error
    finally:
        for handle in handles:
            handle.remove()
    return found
