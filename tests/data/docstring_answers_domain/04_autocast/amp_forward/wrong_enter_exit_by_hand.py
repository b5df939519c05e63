# breaks: "autocast is off again on return."
# how: enters and exits the autocast context by hand, without try/finally: when the model raises, autocast stays on
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    ctx = torch.autocast(device_type=device_type, dtype=dtype)
    ctx.__enter__()
    logits = model(x)
    loss = criterion(logits, y)
    ctx.__exit__(None, None, None)
    return logits, loss
