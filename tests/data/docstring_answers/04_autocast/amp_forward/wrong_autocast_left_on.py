# breaks: "autocast is off again on return."
# how: enters the autocast context by hand and never leaves it.
def amp_forward(model, x, y, criterion, device_type, dtype):
    ctx = torch.autocast(device_type=device_type, dtype=dtype)
    ctx.__enter__()
    logits = model(x)
    loss = criterion(logits, y)
    return logits, loss
