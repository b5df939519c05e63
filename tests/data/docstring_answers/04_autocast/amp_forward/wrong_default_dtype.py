# breaks: "Forward pass and loss under torch.autocast(device_type=device_type, dtype=dtype)."
# how: leaves autocast's dtype at the device default (bfloat16 on the CPU, float16 on CUDA), ignoring dtype.
def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss
