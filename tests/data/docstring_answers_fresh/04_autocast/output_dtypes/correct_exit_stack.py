# reading: a leaf that runs twice keeps its first position and its last dtype (the docstring leaves it open).
# how: contextlib.ExitStack registers handle.remove callbacks, so every hook goes on any exit path.
import contextlib


def output_dtypes(model, x, device_type, dtype):
    recorded = {}

    def recorder(name):
        def hook(module, inputs, output):
            recorded[name] = output.dtype
        return hook

    with contextlib.ExitStack() as cleanup:
        for name, module in model.named_modules():
            if not list(module.children()):
                cleanup.callback(module.register_forward_hook(recorder(name)).remove)
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    return recorded
