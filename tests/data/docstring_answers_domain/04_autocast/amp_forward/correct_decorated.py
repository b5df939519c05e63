# reading: "under torch.autocast(device_type=device_type, dtype=dtype)": autocast used as a decorator is the same
# how: an inner function decorated with torch.autocast(...), called once, returning a tuple built in two steps
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    @torch.autocast(device_type=device_type, dtype=dtype)
    def run(inputs, targets):
        logits = model(inputs)
        return logits, criterion(logits, targets)

    logits, loss = run(x, y)
    return (logits, loss)
